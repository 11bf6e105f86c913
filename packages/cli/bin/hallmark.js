#!/usr/bin/env node
// The installed `hallmark` command: the bundle `pnpm --filter @hallmark/cli build` writes.
import '../dist/hallmark.js';
