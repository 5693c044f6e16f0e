import { CallHandler, createParamDecorator, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';
import { ProblemException } from '../errors/problem.exception';
import { publicPath } from '../http/trailing-slash';

/**
 * `?fields=` (gap-reference 4 and 9, the later edition): a comma-separated list of the top-level keys a list row or
 * a retrieved object should carry. `id` is always returned; `all` returns every field; unrequested keys are omitted
 * (not nulled); an unknown name is a 400 naming it; a relation name is a 400 saying to use `expand` (the two are
 * separate namespaces: `fields=id,name&expand=state` returns id, name and state).
 *
 * Declared once, centrally: declareFields() gives every GET operation whose success response is one resource or a
 * list envelope of resources a `fields` parameter listing that resource's fields (its schema's properties, less
 * the operation's `expand` values). The interceptor enforces exactly what the document declares, so the two cannot
 * drift, and a new list or retrieve route gets `fields` without code of its own.
 */
export const FIELDS_ALL = 'all';

declare module 'fastify' {
  interface FastifyRequest {
    /** The fields asked for (id included), or null for the whole shape. Set by FieldsInterceptor. */
    fields?: ReadonlySet<string> | null;
  }
}

type Schema = Record<string, unknown>;
interface Param {
  name: string;
  in: string;
  schema?: Schema;
}
interface Op {
  parameters?: Param[];
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Op>>;
  components?: { schemas?: Record<string, Schema> };
}

const refName = (s: unknown): string | null => {
  const ref = (s as Schema | undefined)?.$ref;
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : null;
};

/** The component a success response returns: the schema itself, or the item of a list envelope (oneOf pages). */
function resourceOf(op: Op): string | null {
  const schema = op.responses?.['200']?.content?.['application/json']?.schema;
  if (!schema) return null;
  const direct = refName(schema);
  if (direct) return direct;
  const pages = schema.oneOf as Schema[] | undefined;
  const items = pages?.map((p) => refName(((p.properties as Schema | undefined)?.data as Schema | undefined)?.items));
  return items?.length && items.every((n) => n && n === items[0]) ? items[0] : null;
}

/** The values of an operation's enum-of-strings array parameter (expand, fields), or []. */
function enumOf(op: Op, name: string): string[] {
  const schema = op.parameters?.find((p) => p.in === 'query' && p.name === name)?.schema;
  const items = (schema?.items ?? {}) as Schema;
  return Array.isArray(items.enum) ? (items.enum as string[]) : [];
}

/** Adds the `fields` query parameter to every list and retrieve operation of the document (see the file comment). */
export function declareFields(doc: Doc): void {
  for (const item of Object.values(doc.paths)) {
    const op = item.get;
    const resource = op && resourceOf(op);
    const properties = resource ? doc.components?.schemas?.[resource]?.properties : undefined;
    if (!op || !properties || typeof properties !== 'object') continue;
    const relations = new Set(enumOf(op, 'expand'));
    const names = Object.keys(properties).filter((k) => !relations.has(k));
    if (!names.includes('id')) continue;
    allowProjection(doc, op, resource!);
    (op.parameters ??= []).push({
      name: 'fields',
      in: 'query',
      required: false,
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: [...names, FIELDS_ALL] } },
      description:
        'Comma-separated fields to return (others are omitted); `id` is always returned, `all` returns every field. ' +
        'Relations are not fields: ask for them with `expand`.',
    } as Param);
  }
}

/**
 * The response of an operation with `fields` is the resource or its projection: a component `<Resource>Fields` with
 * the same properties, only `id` required (what `?fields=` leaves out is omitted). Both branches are declared so
 * a strict validator accepts a projected response and still checks every field present.
 */
function allowProjection(doc: Doc, op: Op, resource: string): void {
  const schemas = (doc.components ??= {}).schemas!;
  const name = `${resource}Fields`;
  schemas[name] ??= {
    type: 'object',
    description: `${resource} as returned with ?fields=: id, the fields asked for and the relations expanded.`,
    required: ['id'],
    properties: schemas[resource].properties,
  };
  const either = { anyOf: [{ $ref: `#/components/schemas/${resource}` }, { $ref: `#/components/schemas/${name}` }] };
  const media = op.responses!['200'].content!['application/json'];
  const schema = media.schema!;
  if (refName(schema)) media.schema = either;
  else for (const page of schema.oneOf as Schema[]) ((page.properties as Schema).data as Schema).items = either;
}

/** What `?fields=` may name on one operation. */
interface FieldSpec {
  names: ReadonlySet<string>;
  relations: ReadonlySet<string>;
}

/** The operations' field specs, by `METHOD /public/path/{param}/`, read from the served document. */
export function fieldSpecs(doc: Doc): Map<string, FieldSpec> {
  const specs = new Map<string, FieldSpec>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get;
    const names = op ? enumOf(op, 'fields') : [];
    if (!names.length) continue;
    specs.set(`GET ${path}`, { names: new Set(names), relations: new Set(enumOf(op, 'expand')) });
  }
  return specs;
}

/** Parses `?fields=` against an operation's spec: the set to keep (id included), null for the whole shape. */
export function parseFields(raw: unknown, spec: FieldSpec): ReadonlySet<string> | null {
  const text = Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : '';
  const asked = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  refuseNonFields(asked, spec);
  return !asked.length || asked.includes(FIELDS_ALL) ? null : new Set(['id', ...asked]);
}

/** The 400 for relation names (use expand) and unknown names, all named in one problem. */
function refuseNonFields(asked: string[], spec: FieldSpec): void {
  const relations = asked.filter((n) => spec.relations.has(n));
  const unknown = asked.filter((n) => !spec.names.has(n) && !spec.relations.has(n));
  const problems = [
    ...relations.map((n) => ({
      field: 'fields',
      message: `${n} is a relation, not a field: request it with expand=${n}.`,
    })),
    ...(unknown.length
      ? [
          {
            field: 'fields',
            message: `Unknown field(s): ${unknown.join(', ')}. Allowed: ${[...spec.names].join(', ')}.`,
          },
        ]
      : []),
  ];
  if (problems.length) throw ProblemException.validationMany(problems);
}

/** The object with only the kept keys: the fields asked for and the relations expanded. */
function trim(value: unknown, keep: ReadonlySet<string>, expand: ReadonlySet<string>): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (keep.has(k) || expand.has(k)) out[k] = v;
  return out;
}

/** Shapes a list envelope's rows or a single object. */
export function shape(body: unknown, keep: ReadonlySet<string>, expand: ReadonlySet<string>): unknown {
  const envelope = body as { data?: unknown; pagination?: unknown } | null;
  if (envelope && Array.isArray(envelope.data) && envelope.pagination) {
    return { ...envelope, data: envelope.data.map((row) => trim(row, keep, expand)) };
  }
  return trim(body, keep, expand);
}

/** The route of a request in the document's form: `/api/v2/x/:id` becomes `/api/v2/x/{id}/`. */
const documentPath = (routeUrl: string): string => publicPath(routeUrl.replace(/:(\w+)/g, '{$1}'));

/**
 * Validates `?fields=` on every route against the document (before the handler: a bad name is a 400 before any
 * work), stores the parsed set on the request for repositories that read fewer columns, and shapes the response.
 * Routes whose operation declares no `fields` (writes, non-resource reads) ignore it like any unknown parameter.
 */
@Injectable()
export class FieldsInterceptor implements NestInterceptor {
  private specs: Map<string, FieldSpec> | null = null;

  constructor(private readonly document: () => Doc) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const raw = (req.query as Record<string, unknown> | undefined)?.fields;
    req.fields = null;
    if (raw === undefined) return next.handle();
    this.specs ??= fieldSpecs(this.document());
    const spec = this.specs.get(`${req.method} ${documentPath(req.routeOptions.url ?? '')}`);
    if (!spec) return next.handle();
    const keep = parseFields(raw, spec);
    req.fields = keep;
    if (!keep) return next.handle();
    return next.handle().pipe(map((body) => shape(body, keep, req.expand ?? new Set<string>())));
  }
}

/** The fields the request asked for (id included), or null for every field: for reading fewer columns. */
export const RequestedFields = createParamDecorator(
  (_d: unknown, host: ExecutionContext): ReadonlySet<string> | null =>
    host.switchToHttp().getRequest<FastifyRequest>().fields ?? null,
);

/** Whether a field is wanted: every field when no projection was asked for. */
export const wants = (fields: ReadonlySet<string> | null | undefined, name: string): boolean =>
  !fields || fields.has(name);
