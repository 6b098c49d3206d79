/** Content samples of an exact size that pass (or fail) the FileManager content checks. */
import { FILE_TYPES, type ContentKind, type TypeSpec } from '../../classes/_platform/file-types';

const SIGNATURES: Record<Exclude<ContentKind, 'json' | 'text'>, Buffer> = {
  jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  gif: Buffer.from('GIF89a', 'latin1'),
  webp: Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ', 'latin1')]),
  pdf: Buffer.from('%PDF-1.7\n', 'latin1'),
  ole: Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
  zip: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]),
};

/** `size` bytes of valid content for the type (size must fit the signature). */
export function sample(type: TypeSpec | string, size: number): Buffer {
  const t = typeof type === 'string' ? FILE_TYPES.find((x) => x.ext === type)! : type;
  switch (t.content) {
    case 'json': {
      // a JSON string of exactly `size` bytes
      const out = Buffer.alloc(size, 0x61);
      out[0] = 0x22;
      out[size - 1] = 0x22;
      return out;
    }
    case 'text': {
      const line = t.ext === 'csv' ? 'id,name\n1,Åse\n' : 'plain text línea\n';
      const unit = Buffer.from(line, 'utf8');
      const out = Buffer.alloc(size, 0x61);
      // whole lines, then ASCII filler (never splits a multi-byte character)
      for (let at = 0; at + unit.length <= Math.min(size, 4096); at += unit.length) unit.copy(out, at);
      return out;
    }
    default: {
      const sig = SIGNATURES[t.content];
      const out = Buffer.alloc(size, 0x00);
      sig.copy(out, 0, 0, Math.min(sig.length, size));
      return out;
    }
  }
}

export function typeByExt(ext: string): TypeSpec {
  const t = FILE_TYPES.find((x) => x.ext === ext);
  if (!t) throw new Error(`no type ${ext}`);
  return t;
}
