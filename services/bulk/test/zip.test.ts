// The images ZIP reader and the row ↔ image matching: hostile archives (traversal, links,
// encryption, bombs, lying sizes, too many or too large entries, non-images) are refused
// naming the entry; real images come out typed and hashed; junk is skipped.
import { describe, expect, it } from '@jest/globals';
import { HallmarkError } from '@hallmark/kit';
import { createHash } from 'node:crypto';
import {
  addToImageIndex,
  imageCandidates,
  matchImage,
  newImageIndex,
  readZipImages,
  type ZipImage,
  type ZipLimits,
} from '../src/domain/zip.js';
import { buildZip, image, patchName, PDF, setDeclaredSize, setEncryptedFlag } from './fixtures/files.js';

async function read(zip: Buffer, limits?: Partial<ZipLimits>): Promise<ZipImage[]> {
  const out: ZipImage[] = [];
  for await (const img of readZipImages(zip, limits)) out.push(img);
  return out;
}

/** The refusal of the whole upload: parameter_invalid on `images`, by message. */
async function refusal(zip: Buffer, limits?: Partial<ZipLimits>): Promise<string> {
  try {
    await read(zip, limits);
  } catch (err) {
    expect(err).toBeInstanceOf(HallmarkError);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'images' });
    return (err as Error).message;
  }
  throw new Error('expected the ZIP to be refused');
}

describe('readZipImages: accepted archives', () => {
  it('yields each image with its sniffed type, lower-cased key and stem, and SHA-256', async () => {
    const files = {
      'Photos/1.PNG': image.png('1'),
      '2.jpg': image.jpeg('2'),
      'Gold Watch.webp': image.webp('3'),
      'x.gif': image.gif('4'),
    };
    const zip = await buildZip(Object.entries(files).map(([name, data]) => ({ name, data, compress: true })));
    const images = await read(zip);
    expect(images.map(({ bytes: _b, ...rest }) => rest)).toEqual([
      {
        path: 'Photos/1.PNG',
        key: '1.png',
        stem: '1',
        contentType: 'image/png',
        sha256: sha(files['Photos/1.PNG']),
      },
      { path: '2.jpg', key: '2.jpg', stem: '2', contentType: 'image/jpeg', sha256: sha(files['2.jpg']) },
      {
        path: 'Gold Watch.webp',
        key: 'gold watch.webp',
        stem: 'gold watch',
        contentType: 'image/webp',
        sha256: sha(files['Gold Watch.webp']),
      },
      { path: 'x.gif', key: 'x.gif', stem: 'x', contentType: 'image/gif', sha256: sha(files['x.gif']) },
    ]);
    expect(images[0]!.bytes.equals(files['Photos/1.PNG'])).toBe(true);
  });

  it('sniffs the type from the bytes, not the extension', async () => {
    const [img] = await read(await buildZip([{ name: 'mislabelled.png', data: image.jpeg() }]));
    expect(img!.contentType).toBe('image/jpeg');
  });

  it('skips directories, __MACOSX/, dotfiles, hidden folders and Thumbs.db (whose bytes are not images)', async () => {
    const junk = Buffer.from('not an image');
    const zip = await buildZip([
      { name: 'photos/', directory: true },
      { name: '__MACOSX/photos/._1.png', data: junk },
      { name: '.DS_Store', data: junk },
      { name: 'photos/.hidden/2.png', data: junk },
      { name: 'photos/Thumbs.db', data: junk },
      { name: 'photos/1.png' },
    ]);
    expect((await read(zip)).map((i) => i.path)).toEqual(['photos/1.png']);
  });
});

describe('readZipImages: refused archives', () => {
  it('refuses a file that is not a ZIP', async () => {
    expect(await refusal(Buffer.from('hello, this is not an archive'))).toMatch(/not a readable ZIP archive/);
    expect(await refusal(image.png())).toMatch(/not a readable ZIP archive/);
  });

  it('refuses path traversal with ".." and absolute paths, naming the entry', async () => {
    const climbing = patchName(
      await buildZip([{ name: 'ok.png' }, { name: 'ab/evil.png' }]),
      'ab/evil.png',
      '../evil.png',
    );
    expect(await refusal(climbing)).toMatch(/entry "\.\.\/evil\.png" has an unsafe path/);
    const absolute = patchName(await buildZip([{ name: 'xetc/a.png' }]), 'xetc/a.png', '/etc/a.png');
    expect(await refusal(absolute)).toMatch(/entry "\/etc\/a\.png" has an unsafe path/);
  });

  it('refuses a symbolic link entry, naming it', async () => {
    const zip = await buildZip([
      { name: 'ok.png' },
      { name: 'link.png', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    ]);
    expect(await refusal(zip)).toMatch(/entry "link\.png" is a symbolic link/);
  });

  it('refuses an encrypted entry, naming it', async () => {
    const zip = setEncryptedFlag(await buildZip([{ name: 'secret.png', compress: true }]));
    expect(await refusal(zip)).toMatch(/entry "secret\.png" is encrypted/);
  });

  it('refuses a zip bomb (1 MB of zeros) by its compression ratio before inflating it', async () => {
    const zip = await buildZip([{ name: 'bomb.png', data: Buffer.alloc(1024 * 1024), compress: true }]);
    expect(zip.length).toBeLessThan(10 * 1024);
    expect(await refusal(zip)).toMatch(/entry "bomb\.png" compresses more than 100:1/);
  });

  it('refuses an entry whose recorded size is a lie, instead of trusting it', async () => {
    // 1 MB of zeros recorded as 10 KB: ratio and size checks pass on paper; inflating must stop.
    const zip = setDeclaredSize(
      await buildZip([{ name: 'liar.png', data: Buffer.alloc(1024 * 1024), compress: true }]),
      10_000,
    );
    expect(await refusal(zip)).toMatch(/entry "liar\.png" whose real size differs from its recorded size/);
  });

  it('refuses an entry over maxEntryBytes, naming it', async () => {
    const zip = await buildZip([
      { name: 'small.png' },
      { name: 'big.png', data: Buffer.concat([image.png(), Buffer.alloc(2000, 7)]) },
    ]);
    expect(await refusal(zip, { maxEntryBytes: 1000 })).toMatch(/entry "big\.png" is .* at most/);
  });

  it('refuses more than maxTotalBytes of images in all', async () => {
    const zip = await buildZip([{ name: 'a.png' }, { name: 'b.png' }, { name: 'c.png' }]);
    const one = image.png('a.png').length;
    await expect(read(zip, { maxTotalBytes: 3 * one + 10 })).resolves.toHaveLength(3);
    expect(await refusal(zip, { maxTotalBytes: 2 * one + 10 })).toMatch(/more than .* of images/);
  });

  it('refuses more than maxEntries entries before reading any', async () => {
    const zip = await buildZip([{ name: 'a.png' }, { name: 'b.png' }, { name: 'c.png' }]);
    expect(await refusal(zip, { maxEntries: 2 })).toMatch(/has 3 entries; at most 2/);
  });

  it('refuses an entry that is not a supported image, naming it and what it is', async () => {
    expect(
      await refusal(await buildZip([{ name: '1.png' }, { name: 'notes.txt', data: Buffer.from('hello') }])),
    ).toMatch(/entry "notes\.txt" is not a PNG, JPEG, WebP or GIF image/);
    expect(await refusal(await buildZip([{ name: 'doc.png', data: PDF }]))).toMatch(
      /"doc\.png" .*\(it is application\/pdf\)/,
    );
  });

  it('refuses two images with the same name in different folders (matching would be ambiguous)', async () => {
    const zip = await buildZip([{ name: 'a/1.png' }, { name: 'b/1.PNG' }]);
    expect(await refusal(zip)).toMatch(/two entries named "1\.png" \("a\/1\.png" and "b\/1\.PNG"\)/);
  });
});

describe('imageCandidates and matchImage', () => {
  const index = (...names: string[]) => {
    const idx = newImageIndex<string>();
    for (const n of names) {
      const key = n.toLowerCase();
      addToImageIndex(idx, { key, stem: key.slice(0, key.lastIndexOf('.')) }, n);
    }
    return idx;
  };

  it('looks up <row>.png, .jpg, .jpeg, .webp, .gif, then the name as a stem and as a slug', () => {
    expect(imageCandidates({ row: 7, name: 'Gold Watch' })).toEqual([
      '7.png',
      '7.jpg',
      '7.jpeg',
      '7.webp',
      '7.gif',
      'gold watch',
      'gold-watch',
    ]);
  });

  it('prefers the row number in extension order over the name', () => {
    const idx = index('7.jpg', '7.png', 'Gold Watch.png');
    expect(matchImage({ row: 7, name: 'Gold Watch' }, idx)).toBe('7.png');
    expect(matchImage({ row: 8, name: 'Gold Watch' }, idx)).toBe('Gold Watch.png');
  });

  it('matches the name to stems case-insensitively, and by slug (underscores, accents)', () => {
    const idx = index('Gold_Watch.jpg', 'cafe-creme.webp');
    expect(matchImage({ row: 1, name: 'GOLD WATCH' }, idx)).toBe('Gold_Watch.jpg');
    expect(matchImage({ row: 2, name: 'Café Crème' }, idx)).toBe('cafe-creme.webp');
    expect(matchImage({ row: 3, name: 'Silver Ring' }, idx)).toBeUndefined();
  });

  it('uses imageFile alone (base name, any case) and never falls back to another image', () => {
    const idx = index('1.png', 'Photo.PNG');
    expect(imageCandidates({ row: 1, name: 'x', imageFile: 'shots/Photo.png' })).toEqual(['photo.png']);
    expect(matchImage({ row: 1, name: 'x', imageFile: 'shots/Photo.png' }, idx)).toBe('Photo.PNG');
    expect(matchImage({ row: 1, name: 'x', imageFile: 'missing.png' }, idx)).toBeUndefined();
  });

  it('works on an index of plain stems too (byStem filled with the stem only)', () => {
    const idx = { byKey: new Map<string, number>(), byStem: new Map([['gold-watch', 42]]) };
    expect(matchImage({ row: 1, name: 'Gold Watch' }, idx)).toBe(42);
  });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
