// Writes test/client/openapi.d.ts: the types openapi-typescript generates from the committed openapi.json with its
// default options. Generated, not committed: npm test and npm run lint run this first, and
// test/e2e/generated-client.spec.ts runs it again before compiling the typed client.
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

const doc = JSON.parse(readFileSync('openapi.json', 'utf8'));
writeFileSync('test/client/openapi.d.ts', astToString(await openapiTS(doc)));
console.log(JSON.stringify({ written: 'test/client/openapi.d.ts' }));
