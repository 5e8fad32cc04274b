/** Audio inside the pipeline: 16 kHz, mono, signed 16-bit little-endian PCM. */
export const sampleRate = 16_000;
export const bytesPerMs = (sampleRate * 2) / 1000;
export const wavHeaderBytes = 44;

/** The canonical 44-byte header of a PCM WAV file holding `dataBytes` of our audio. */
export function wavHeader(dataBytes: number): Uint8Array {
  const header = new ArrayBuffer(wavHeaderBytes);
  const view = new DataView(header);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i));
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, dataBytes, true);
  return new Uint8Array(header);
}

/** Byte offset of a time in the PCM file (whole samples). */
export const pcmOffset = (ms: number) => Math.round((ms * sampleRate) / 1000) * 2;

/** Writes the PCM between two times as a WAV file that an engine can read. */
export async function writeWavSlice(pcmPath: string, startMs: number, endMs: number, outPath: string): Promise<void> {
  const data = await Bun.file(pcmPath).slice(pcmOffset(startMs), pcmOffset(endMs)).arrayBuffer();
  await Bun.write(outPath, new Blob([wavHeader(data.byteLength), data]));
}

/** The samples between two times. */
export async function readSamples(pcmPath: string, startMs: number, endMs: number): Promise<Int16Array> {
  const data = await Bun.file(pcmPath).slice(pcmOffset(startMs), pcmOffset(endMs)).arrayBuffer();
  return new Int16Array(data, 0, Math.floor(data.byteLength / 2));
}
