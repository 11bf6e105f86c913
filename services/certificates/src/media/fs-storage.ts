// The filesystem backend: objects as files under one directory (HALLMARK_MEDIA_DIR, by default
// `<data dir>/media`). Writes go to a temporary file renamed into place, so a reader never
// sees half an object and a crash leaves at most a stray temporary file.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ByteRange } from './domain/image.js';
import type { BlobStorage, StoredObject } from './storage.js';

export class FsStorage implements BlobStorage {
  readonly kind = 'fs' as const;
  constructor(private readonly dir: string) {}

  private file(key: string): string {
    if (key.includes('..') || path.isAbsolute(key)) throw new Error(`bad media key ${key}`);
    return path.join(this.dir, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, file);
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    let fh;
    try {
      fh = await open(this.file(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const total = (await fh.stat()).size;
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? total - 1, total - 1);
      const bytes = Buffer.alloc(Math.max(0, end - start + 1));
      if (bytes.length > 0) await fh.read(bytes, 0, bytes.length, start);
      return { bytes, total };
    } finally {
      await fh.close();
    }
  }

  async has(key: string): Promise<boolean> {
    return stat(this.file(key)).then(
      () => true,
      () => false,
    );
  }

  async count(prefix: string): Promise<number> {
    const base = this.file(prefix);
    const walk = async (dir: string): Promise<number> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      let n = 0;
      for (const e of entries) {
        if (e.isDirectory()) n += await walk(path.join(dir, e.name));
        else if (!e.name.endsWith('.tmp')) n++;
      }
      return n;
    };
    return walk(base);
  }
}
