/* What the account page says about plans and prices. Nothing here uses the DOM or the API client, so unit tests import it as it is. */

/**
 * The plans from the least to the most they include (src/accounts/plans.ts: Free, Pay as you go, Pro, Max; Max
 * has Pro's features and more time, at a higher priority). A plan the app does not know (a newer service) is not
 * placed, and nothing is offered to it.
 */
const ladder = ["free", "payg", "pro", "max"];

/** Whether an account on `current` is offered checkout's `offered` plan: only one that includes more. */
export function isUpgrade(current: string, offered: string): boolean {
  const from = ladder.indexOf(current);
  const to = ladder.indexOf(offered);
  return from !== -1 && to !== -1 && from < to;
}

/**
 * A price as the API gives it (an integer in the currency's minor units, as payment providers take it) in words:
 * `1500, "USD", "month"` → "$15.00 a month". The currency's own number of decimals says what a minor unit is.
 */
export function priceInWords(price: number, currency: string, interval: string): string {
  const per = interval === "month" || interval === "year" ? ` a ${interval}` : "";
  let amount: string;
  try {
    const format = new Intl.NumberFormat("en", { style: "currency", currency });
    amount = format.format(price / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    // A code that is no currency code at all: the amount in hundredths, with the code.
    amount = `${(price / 100).toFixed(2)} ${currency}`;
  }
  return `${amount}${per}`;
}

/** Hours of transcription a month: 72000 → "20 hours". */
export function allowanceInWords(seconds: number): string {
  const hours = seconds / 3600;
  if (Number.isInteger(hours)) return hours === 1 ? "1 hour" : `${hours} hours`;
  const minutes = Math.round(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}
