/**
 * A segment's voice print for diarization.ts: the mean and spread of its MFCCs (which follow the shape of the
 * vocal tract) and its median pitch, computed from 16 kHz samples without a trained model.
 */

const sampleRate = 16_000;
const frameLength = 400; // 25 ms
const hop = 160; // 10 ms
const fftSize = 512;
const melBands = 26;
const cepstra = 12; // c1..c12; c0 is loudness, not voice

/** Twiddle factors of the FFT size used here. */
const cosTable = Float64Array.from({ length: fftSize / 2 }, (_, k) => Math.cos((-2 * Math.PI * k) / fftSize));
const sinTable = Float64Array.from({ length: fftSize / 2 }, (_, k) => Math.sin((-2 * Math.PI * k) / fftSize));

/** In-place radix-2 FFT of length fftSize. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = cosTable[k * step]!;
        const wi = sinTable[k * step]!;
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}

const hamming = Float64Array.from({ length: frameLength }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (frameLength - 1)));

/** Triangular mel filters over the FFT bins, 20 Hz to 8 kHz: first bin and weights. */
const melFilters: { from: number; weights: Float64Array }[] = (() => {
  const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const points = Array.from({ length: melBands + 2 }, (_, i) => mel(20) + ((mel(8000) - mel(20)) * i) / (melBands + 1));
  const bins = points.map((m) => Math.min(fftSize / 2, Math.floor(((fftSize + 1) * hz(m)) / sampleRate)));
  return Array.from({ length: melBands }, (_, b) => {
    const [left, centre, right] = [bins[b]!, bins[b + 1]!, bins[b + 2]!];
    const weights = new Float64Array(right - left + 1);
    for (let k = left; k <= right; k++) weights[k - left] = k < centre ? (k - left) / Math.max(1, centre - left) : (right - k) / Math.max(1, right - centre);
    return { from: left, weights };
  });
})();

/** DCT-II basis for c1..c12. */
const dct = Array.from({ length: cepstra }, (_, n) => Float64Array.from({ length: melBands }, (_, m) => Math.cos((Math.PI * (n + 1) * (m + 0.5)) / melBands)));

/** Pitch of one frame by autocorrelation at 4 kHz (60-400 Hz), or null when the frame is not voiced. */
function framePitch(frame: Float64Array): number | null {
  // An 8-sample moving average (a low-pass with its first null at 2 kHz) taken every 4th sample.
  const decimated = new Float64Array(Math.floor((frame.length - 8) / 4) + 1);
  for (let i = 0; i < decimated.length; i++) {
    let sum = 0;
    for (let k = 0; k < 8; k++) sum += frame[4 * i + k]!;
    decimated[i] = sum / 8;
  }
  let energy = 0;
  for (const x of decimated) energy += x * x;
  if (energy <= 0) return null;
  const correlation = new Float64Array(68);
  let bestLag = 0;
  for (let lag = 9; lag <= 67; lag++) {
    // Normalised cross-correlation of the overlapping parts: no bias towards short lags.
    let sum = 0;
    let head = 0;
    let tail = 0;
    for (let i = 0; i + lag < decimated.length; i++) {
      sum += decimated[i]! * decimated[i + lag]!;
      head += decimated[i]! ** 2;
      tail += decimated[i + lag]! ** 2;
    }
    correlation[lag] = head > 0 && tail > 0 ? sum / Math.sqrt(head * tail) : 0;
    if (lag >= 10 && lag <= 66 && correlation[lag]! > (correlation[bestLag] ?? 0)) bestLag = lag;
  }
  if (bestLag === 0 || correlation[bestLag]! <= 0.3) return null;
  // Multiples of the period correlate as well as the period: take the shortest lag that peaks nearly as high.
  for (let lag = 10; lag < bestLag; lag++) {
    if (correlation[lag]! >= 0.85 * correlation[bestLag]! && correlation[lag]! >= correlation[lag - 1]! && correlation[lag]! >= correlation[lag + 1]!) {
      bestLag = lag;
      break;
    }
  }
  // A parabola through the peak and its neighbours finds the lag between samples (4 kHz is coarse).
  const [left, centre, right] = [correlation[bestLag - 1]!, correlation[bestLag]!, correlation[bestLag + 1]!];
  const curvature = left - 2 * centre + right;
  const shift = curvature < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (left - right)) / curvature)) : 0;
  return 4000 / (bestLag + shift);
}

/** A segment's voice print: mean and standard deviation of c1..c12 over its louder frames, and log2 of its median pitch. */
export function voiceFeatures(samples: Int16Array): number[] | null {
  const frames = Math.floor((samples.length - frameLength) / hop) + 1;
  if (frames < 10) return null;
  const ceps: Float64Array[] = [];
  const energies: number[] = [];
  const pitches: number[] = [];
  const re = new Float64Array(fftSize);
  const im = new Float64Array(fftSize);
  const raw = new Float64Array(frameLength);
  for (let f = 0; f < frames; f++) {
    const offset = f * hop;
    let energy = 0;
    for (let i = 0; i < frameLength; i++) {
      const x = samples[offset + i]! / 32768;
      raw[i] = x;
      energy += x * x;
      const previous = i > 0 ? samples[offset + i - 1]! / 32768 : 0;
      re[i] = (x - 0.97 * previous) * hamming[i]!;
      im[i] = 0;
    }
    re.fill(0, frameLength);
    im.fill(0, frameLength);
    fft(re, im);
    const c = new Float64Array(cepstra);
    const logMel = melFilters.map(({ from, weights }) => {
      let sum = 0;
      for (let k = 0; k < weights.length; k++) sum += weights[k]! * (re[from + k]! ** 2 + im[from + k]! ** 2);
      return Math.log(Math.max(sum, 1e-10));
    });
    for (let n = 0; n < cepstra; n++) {
      let sum = 0;
      for (let m = 0; m < melBands; m++) sum += logMel[m]! * dct[n]![m]!;
      c[n] = sum;
    }
    ceps.push(c);
    energies.push(energy);
    if (f % 2 === 0) {
      const pitch = framePitch(raw);
      if (pitch !== null) pitches.push(pitch);
    }
  }
  // The louder half of the frames: speech, not the pauses around it.
  const median = [...energies].sort((a, b) => a - b)[Math.floor(energies.length / 2)]!;
  const voiced = ceps.filter((_, i) => energies[i]! >= median && energies[i]! > 0);
  if (voiced.length === 0) return null;
  const mean = Array.from({ length: cepstra }, (_, d) => voiced.reduce((s, c) => s + c[d]!, 0) / voiced.length);
  const std = Array.from({ length: cepstra }, (_, d) => Math.sqrt(voiced.reduce((s, c) => s + (c[d]! - mean[d]!) ** 2, 0) / voiced.length));
  const pitch = pitches.length > 0 ? [...pitches].sort((a, b) => a - b)[Math.floor(pitches.length / 2)]! : NaN;
  return [...mean, ...std, Math.log2(pitch)];
}
