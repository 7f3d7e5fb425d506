// Marks each half of dist/ with its module format, so Node (and bundlers) read dist/esm/*.js as ES
// modules and dist/cjs/*.js as CommonJS whatever this package's own "type" says.
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/esm/package.json', import.meta.url), '{ "type": "module" }\n');
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
