/** Regroups a stream into chunks of exactly `size` bytes (the last may be shorter, never empty unless it is the only one). */
export async function* fixedSizeChunks(stream: ReadableStream<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let buffer = new Uint8Array(size);
  let filled = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let offset = 0;
      while (offset < value.byteLength) {
        const n = Math.min(size - filled, value.byteLength - offset);
        buffer.set(value.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === size) {
          yield buffer;
          buffer = new Uint8Array(size);
          filled = 0;
        }
      }
    }
    if (filled > 0) yield buffer.subarray(0, filled);
  } finally {
    reader.releaseLock();
  }
}
