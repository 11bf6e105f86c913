// `pnpm gen`: lint the protos and regenerate all TypeScript from them (ts-proto through
// buf, no protoc needed). Generated code is committed; CI runs this and fails on a diff.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';

const protoDir = path.join(import.meta.dirname, '..', 'proto');
const buf = path.join(import.meta.dirname, '..', 'node_modules', '.bin', 'buf');

execFileSync(buf, ['lint'], { cwd: protoDir, stdio: 'inherit' });
rmSync(path.join(protoDir, 'gen'), { recursive: true, force: true });
execFileSync(buf, ['generate'], { cwd: protoDir, stdio: 'inherit' });
console.log('proto: generated TypeScript in proto/gen');
