import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { AudioPacing } from "../../../src/live/audio/pacing.ts";

/** Audio admitted at up to `speed` times real time plus a burst; the rest refused and not counted. */

describe("AudioPacing", () => {
  test("given a burst allowance, when audio arrives at once, then up to the burst is admitted and the rest refused", () => {
    const pacing = new AudioPacing({ speed: 2, burstMs: 1000 });
    expect(pacing.admit(600, 0)).toBe(true);
    expect(pacing.admit(400, 0)).toBe(true);
    expect(pacing.admit(1, 0)).toBe(false);
  });

  test("given time passing, when audio arrives at twice real time, then it is all admitted", () => {
    const pacing = new AudioPacing({ speed: 2, burstMs: 200 });
    for (let now = 0; now < 10_000; now += 100) expect(pacing.admit(200, now)).toBe(true);
  });

  test("given audio at 20 times real time, when it keeps arriving, then about twice real time is admitted", () => {
    const pacing = new AudioPacing({ speed: 2, burstMs: 500 });
    let admitted = 0;
    for (let now = 0; now < 10_000; now += 10) if (pacing.admit(200, now)) admitted += 200;
    expect(admitted).toBeLessThanOrEqual(2 * 10_000 + 500);
    expect(admitted).toBeGreaterThan(2 * 10_000 - 500);
  });

  test("given refused audio, when the client slows down, then audio is admitted again (refusals are not counted)", () => {
    const pacing = new AudioPacing({ speed: 2, burstMs: 100 });
    expect(pacing.admit(100, 0)).toBe(true);
    for (let i = 0; i < 50; i++) expect(pacing.admit(100, 1)).toBe(false);
    expect(pacing.admit(100, 50)).toBe(true);
  });

  test("given a first chunk larger than the burst, when it is refused, then the clock still starts", () => {
    const pacing = new AudioPacing({ speed: 2, burstMs: 100 });
    expect(pacing.admit(1000, 5000)).toBe(false);
    expect(pacing.admit(1000, 5450)).toBe(true);
  });

  test("given any arrivals, then the admitted total never exceeds speed x elapsed + burst", () => {
    const arrivals = fc.array(fc.record({ audioMs: fc.integer({ min: 0, max: 3000 }), waitMs: fc.integer({ min: 0, max: 2000 }) }), { maxLength: 100 });
    fc.assert(
      fc.property(arrivals, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 2000 }), (list, speed, burstMs) => {
        const pacing = new AudioPacing({ speed, burstMs });
        let now = 1_000_000;
        let admitted = 0;
        const start = now;
        for (const { audioMs, waitMs } of list) {
          now += waitMs;
          if (pacing.admit(audioMs, now)) admitted += audioMs;
          expect(admitted).toBeLessThanOrEqual(speed * (now - start) + burstMs);
        }
      }),
    );
  });

  test("given a nonsensical setting, when constructed, then it throws", () => {
    expect(() => new AudioPacing({ speed: 0, burstMs: 0 })).toThrow(RangeError);
    expect(() => new AudioPacing({ speed: 2, burstMs: -1 })).toThrow(RangeError);
  });
});
