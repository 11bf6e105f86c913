// Entry point of the `hallmark` binary (bundled to dist/hallmark.js) and of `pnpm hallmark`.
import { main } from './main.js';

process.exitCode = await main();
