import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { execFileSync } from 'node:child_process';
import { createTestApp, TestApp } from '../helpers/test-app';
import { exerciseClient } from '../client/typed-client';

const root = resolve(__dirname, '../..');

/**
 * A generated client works against the committed document: openapi-typescript with its default options, a small
 * openapi-fetch client (test/client/typed-client.ts) compiled under tsc --strict, run against the server.
 */
describe('generated client', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('openapi-typescript with default options generates the types from openapi.json', () => {
    execFileSync(process.execPath, ['test/client/generate-types.mjs'], { cwd: root });
    const types = readFileSync(resolve(root, 'test/client/openapi.d.ts'), 'utf8');
    expect(types).toContain('"/api/v2/workspaces/{slug}/projects/{project_id}/work-items/"');
    // Request fields with a server-side default are optional, as the API treats them.
    expect(types).toMatch(/CreateCycleDto: \{[^}]*timezone\?: string/);
  });

  it('the typed client compiles under tsc --strict', () => {
    const program = ts.createProgram([resolve(root, 'test/client/typed-client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      skipLibCheck: true,
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(errors).toEqual([]);
  });

  it('creates, lists with expand across cursor pages and reads a problem against the server', async () => {
    const ten = await t.tenant();
    const project = await t.project(ten.slug, ten.owner.key);
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    const first = await exerciseClient(baseUrl, ten.owner.key, ten.slug, project.id);
    const run = await exerciseClient(baseUrl, ten.owner.key, ten.slug, project.id);
    expect(first.created.name).toBe('Typed client item');
    expect(run.created).toEqual(expect.objectContaining({ name: 'Typed client item', priority: 'none' }));
    expect(run.pages).toHaveLength(2);
    expect(run.pages.map((p) => p.name)).toEqual(['Typed client item', 'Typed client item']);
    expect(run.pages.every((p) => p.stateGroup === 'backlog')).toBe(true);
    expect(run.pages[0].nextCursor).toEqual(expect.any(String));
    expect(run.problemStatus).toBe(404);
    expect(run.problem.code).toBe('resource_not_found');
  });
});
