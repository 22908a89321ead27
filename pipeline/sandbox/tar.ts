const BLOCK = 512;

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, length, 'utf8');
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\0`;
}

/** A tar archive of one regular file, the form Docker's archive API takes to copy a file in. */
export function tarOf(name: string, content: Buffer): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`file name too long for a tar header: ${name}`);
  const header = Buffer.alloc(BLOCK);
  field(header, 0, 100, name);
  field(header, 100, 8, octal(0o644, 8));
  field(header, 108, 8, octal(0, 8));
  field(header, 116, 8, octal(0, 8));
  field(header, 124, 12, octal(content.length, 12));
  field(header, 136, 12, octal(Math.floor(Date.now() / 1000), 12));
  field(header, 148, 8, ' '.repeat(8));
  field(header, 156, 1, '0');
  field(header, 257, 8, 'ustar\u000000');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  const padding = Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK);
  return Buffer.concat([header, content, padding, Buffer.alloc(2 * BLOCK)]);
}
