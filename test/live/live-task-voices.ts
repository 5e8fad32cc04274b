/**
 * Voice-like test audio without a recording: a fundamental with its harmonics, shaped by formant peaks and a slow
 * loudness change, plus a little noise. Two of them, far apart in pitch and formants, print as two speakers
 * (src/transcription/voice-print.ts).
 */
export function voice(f0: number, formants: readonly number[], ms: number, seed: number): Int16Array {
  const samples = new Int16Array(Math.round(ms * 16));
  let noise = seed;
  for (let i = 0; i < samples.length; i++) {
    const t = i / 16_000;
    const pitch = f0 * (1 + 0.03 * Math.sin(2 * Math.PI * 3 * t));
    let value = 0;
    for (let h = 1; pitch * h < 4000; h++) {
      const gain = formants.reduce((sum, formant) => sum + 1 / (1 + ((pitch * h - formant) / 120) ** 2), 0.02);
      value += gain * Math.sin(2 * Math.PI * pitch * h * t + h);
    }
    noise = (noise * 1_103_515_245 + 12_345) & 0x7fff_ffff;
    const loudness = 0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t) ** 2;
    samples[i] = Math.max(-32_000, Math.min(32_000, value * 4000 * loudness + (noise / 0x7fff_ffff - 0.5) * 200));
  }
  return samples;
}
