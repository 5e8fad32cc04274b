/**
 * Sizes and speeds for people, in binary units ("340 KiB", "1.5 GiB", "8.4 MiB/s"): the API's limit is 2 GiB
 * exactly, which decimal units would show as an odd "2.15 GB".
 */
export function bytes(count: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${count} bytes`;
  return `${value.toLocaleString("en-US", { maximumFractionDigits: value < 10 ? 1 : 0 })} ${units[unit]}`;
}

export const bytesPerSecond = (rate: number) => `${bytes(Math.round(rate))}/s`;
