// Module boundaries as a lint rule (docs/extending.md): `src/common/**` is shared machinery and imports no
// feature folder (nor the app module); a feature never imports another feature's `*.repository` (its SQL is
// private: other features call its exported service or a named, exported `*.queries.ts` module); only
// CommonModule is `@Global()`.
import path from 'node:path';

/**
 * Folders that form one Nest module (WorkItemTypesModule declares the providers of all four): they share
 * repositories freely, as the files of one feature would.
 */
const FEATURE_GROUPS = [['work-item-types', 'work-item-properties', 'work-item-property-contexts', 'custom-fields']];

function featureOf(dir) {
  const group = FEATURE_GROUPS.find((g) => g.includes(dir));
  return group ? group[0] : dir;
}

/** `{ top, file }` of a path under src/ (`top` is the first folder, or the file name at the root), else null. */
function underSrc(root, absolute) {
  const rel = path.relative(path.join(root, 'src'), absolute);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const parts = rel.split(path.sep);
  return { top: parts[0], file: parts[parts.length - 1], nested: parts.length > 1 };
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'src/common imports no feature; features import no other feature’s repository' },
    messages: {
      commonImportsFeature:
        'src/common imports no feature ({{target}}): declare a port in common and bind it in the feature or app module.',
      foreignRepository:
        '{{target}} is another feature’s repository: call its exported service or a named *.queries.ts module.',
      globalModule:
        'Only CommonModule is @Global: import the module whose providers you use, so `imports` tells the truth.',
    },
    schema: [],
  },
  create(context) {
    const root = context.cwd;
    const from = underSrc(root, context.filename);
    if (!from) return {};
    const commonModule = path.join(root, 'src', 'common', 'common.module.ts');
    const global = (node) => {
      const callee = node.expression.type === 'CallExpression' ? node.expression.callee : node.expression;
      if (callee.type === 'Identifier' && callee.name === 'Global' && context.filename !== commonModule)
        context.report({ node, messageId: 'globalModule' });
    };
    if (!from.nested) return { Decorator: global };
    const check = (node) => {
      const source = node.source && node.source.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = underSrc(root, path.resolve(path.dirname(context.filename), source));
      if (!to) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), source));
      if (from.top === 'common') {
        if (to.top !== 'common')
          context.report({ node: node.source, messageId: 'commonImportsFeature', data: { target } });
        return;
      }
      if (to.top === 'common' || !to.nested || featureOf(to.top) === featureOf(from.top)) return;
      if (/\.repository(\.[jt]s)?$/.test(to.file))
        context.report({ node: node.source, messageId: 'foreignRepository', data: { target } });
    };
    return {
      Decorator: global,
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'module-boundaries': rule } };
