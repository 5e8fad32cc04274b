/**
 * The low-pass filter the 24 -> 16 kHz resampler applies at 48 kHz (after doubling the rate, before keeping every third
 * sample): a Kaiser-windowed sinc. 7.2 kHz keeps all of speech's useful band below the 8 kHz Nyquist frequency of the
 * output; 191 taps with beta 8 give a stopband of about 80 dB from ~8.8 kHz, so what lies above folds back inaudibly.
 */

const taps = 191;
const kaiserBeta = 8;

/** The filter split into its two phases (even and odd taps), each scaled to a DC gain of exactly 1. */
export function lowPassPhases(sampleRate: number, cutoffHz: number): [Float64Array, Float64Array] {
  const middle = (taps - 1) / 2;
  const normalizedCutoff = cutoffHz / sampleRate;
  const filter = new Float64Array(taps);
  for (let k = 0; k < taps; k++) {
    const x = k - middle;
    const sinc = x === 0 ? 2 * normalizedCutoff : Math.sin(2 * Math.PI * normalizedCutoff * x) / (Math.PI * x);
    const window = besselI0(kaiserBeta * Math.sqrt(1 - (x / middle) ** 2)) / besselI0(kaiserBeta);
    filter[k] = sinc * window;
  }
  const even = filter.filter((_, k) => k % 2 === 0);
  const odd = filter.filter((_, k) => k % 2 === 1);
  return [scaledToUnitGain(even), scaledToUnitGain(odd)];
}

function scaledToUnitGain(phase: Float64Array): Float64Array {
  const sum = phase.reduce((total, tap) => total + tap, 0);
  return phase.map((tap) => tap / sum);
}

/** The modified Bessel function of the first kind, order 0, by its power series (converges fast for the window's range). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50 && term > sum * 1e-16; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}
