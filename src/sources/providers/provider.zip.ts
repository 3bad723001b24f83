import { crc32, inflateRawSync } from "node:zlib";

/** A ZIP that cannot be read as one file: the provider sent something else, or a damaged archive. */
export class ZipFormatError extends Error {
  override name = "ZipFormatError";
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export interface ZipEntry {
  name: string;
  data: Buffer;
}

/**
 * The first file of a ZIP archive (the ECB's history is one CSV in a ZIP). The sizes come from the central
 * directory, which is right even when the local header defers them to a data descriptor; stored and deflated
 * entries are read, and the CRC-32 is checked.
 */
export function unzipFirst(zip: Buffer): ZipEntry {
  // The end-of-central-directory record is the last 22 bytes, unless an archive comment (at most 64 KiB) follows it.
  let eocd = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new ZipFormatError("not a ZIP archive (no end of central directory)");
  const entries = zip.readUInt16LE(eocd + 10);
  const centralAt = zip.readUInt32LE(eocd + 16);
  if (entries < 1) throw new ZipFormatError("the ZIP archive is empty");
  if (centralAt + 46 > zip.length || zip.readUInt32LE(centralAt) !== CENTRAL) {
    throw new ZipFormatError("damaged ZIP archive (central directory)");
  }
  const flags = zip.readUInt16LE(centralAt + 8);
  const method = zip.readUInt16LE(centralAt + 10);
  const crc = zip.readUInt32LE(centralAt + 16);
  const compressed = zip.readUInt32LE(centralAt + 20);
  const size = zip.readUInt32LE(centralAt + 24);
  const nameLength = zip.readUInt16LE(centralAt + 28);
  const localAt = zip.readUInt32LE(centralAt + 42);
  const name = zip.toString("utf8", centralAt + 46, centralAt + 46 + nameLength);
  if (flags & 1) throw new ZipFormatError(`${name}: encrypted ZIP entries are not read`);
  if (localAt + 30 > zip.length || zip.readUInt32LE(localAt) !== LOCAL) {
    throw new ZipFormatError("damaged ZIP archive (local header)");
  }
  const start = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
  if (start + compressed > zip.length) throw new ZipFormatError(`${name}: the archive is cut short`);
  const raw = zip.subarray(start, start + compressed);
  let data: Buffer;
  if (method === 0) data = Buffer.from(raw);
  else if (method === 8) {
    try {
      data = inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) });
    } catch (e) {
      throw new ZipFormatError(`${name}: cannot be inflated (${(e as Error).message})`);
    }
  } else throw new ZipFormatError(`${name}: compression method ${method} is not read (only stored and deflated)`);
  if (data.length !== size || crc32(data) !== crc) throw new ZipFormatError(`${name}: damaged (size or CRC-32)`);
  return { name, data };
}
