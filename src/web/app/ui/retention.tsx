import { useState } from "preact/hooks";
import { api, call } from "../api.ts";
import { FormError, Submit, useForm } from "./form.tsx";

/** "1 day", "30 days". */
export const daysInWords = (days: number) => (days === 1 ? "1 day" : `${days} days`);

/**
 * The days typed, as the API takes them: digits become their number; anything else becomes 0, which the API refuses
 * with its own words (naming its limit), where NaN would travel as JSON null and turn retention off.
 */
export function typedDays(text: string): number {
  return /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : 0;
}

/** What the account's retention means, in a sentence. */
export function retentionInWords(days: number | null): string {
  if (days === null) return "Your transcriptions are kept until you delete them.";
  return (
    `Transcriptions are deleted ${daysInWords(days)} after they were created, with their media, exports and search entries. ` +
    "A notification tells you a day before."
  );
}

/**
 * "Keep transcriptions for": until deleted (retention_days null) or a number of days up to the service's limit,
 * saved through PUT /api/user; GET /api/user gave the current value and the limit.
 */
export function RetentionSetting({ days, maxDays }: { days: number | null; maxDays: number }) {
  const [saved, setSaved] = useState(days);
  const [limited, setLimited] = useState(days !== null);
  const [outcome, setOutcome] = useState("");
  const form = useForm(async (data) => {
    const chosen = limited ? typedDays(String(data.get("retention_days") ?? "")) : null;
    setOutcome("");
    await call(api.PUT("/api/user", { body: { retention_days: chosen } }));
    setSaved(chosen);
    setOutcome(chosen === null ? "Saved: transcriptions are kept until you delete them." : `Saved: transcriptions are kept for ${daysInWords(chosen)}.`);
  });
  const messages = form.errors.retention_days;
  return (
    <section aria-labelledby="retention" class="retention">
      <h2 id="retention">Keep transcriptions for</h2>
      <p>{retentionInWords(saved)}</p>
      <form onSubmit={form.onSubmit} noValidate>
        <FormError error={form.error} />
        <fieldset>
          <legend>Keep transcriptions</legend>
          <label>
            <input type="radio" name="keep" checked={!limited} onChange={() => setLimited(false)} /> Until I delete them
          </label>
          <label>
            <input type="radio" name="keep" checked={limited} onChange={() => setLimited(true)} /> For a number of days
          </label>
        </fieldset>
        {limited && (
          <div class="field">
            <label for="field-retention_days">Days, from 1 to {maxDays}</label>
            <input
              id="field-retention_days"
              name="retention_days"
              type="number"
              inputMode="numeric"
              min={1}
              max={maxDays}
              step={1}
              defaultValue={String(saved ?? 365)}
              aria-invalid={messages ? "true" : undefined}
              aria-describedby={messages ? "field-retention_days-error" : undefined}
            />
            {messages && (
              <p id="field-retention_days-error" class="field-error">
                {messages.join(" ")}
              </p>
            )}
          </div>
        )}
        <Submit busy={form.busy}>Save</Submit>
      </form>
      <p role="status" class="muted">
        {outcome}
      </p>
    </section>
  );
}
