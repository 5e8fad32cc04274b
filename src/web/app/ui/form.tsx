import type { ComponentChildren, InputHTMLAttributes } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.ts";

/** `beside`: the form's fields that show a message of the refusal, in the form's order. */
type FormState = { busy: boolean; error: ApiError | null; beside: HTMLInputElement[] };

/** The fields of `form` that the API's 422 names: each shows its messages next to it (Field). */
function fieldsNamed(form: HTMLFormElement, error: ApiError): HTMLInputElement[] {
  return [...form.elements].filter(
    (element): element is HTMLInputElement => element instanceof HTMLInputElement && element.type !== "hidden" && Object.hasOwn(error.fields, element.name),
  );
}

/**
 * A form's submission: the handler gets the form's fields, and an ApiError it throws is kept for the form to
 * show, each field's messages (422 `errors`) next to that field and the message above the fields, unless it is
 * one of those (a 422's message is its first field's): then it shows once, by its field, which takes the focus so
 * that a screen reader reads the field with its message. `error` is what FormError shows above the fields.
 */
export function useForm(handler: (data: FormData, form: HTMLFormElement) => Promise<void>) {
  const [state, setState] = useState<FormState>({ busy: false, error: null, beside: [] });
  useEffect(() => state.beside[0]?.focus(), [state]);
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setState({ busy: true, error: null, beside: [] });
    try {
      await handler(new FormData(form), form);
      setState({ busy: false, error: null, beside: [] });
    } catch (error) {
      const refused = ApiError.of(error);
      setState({ busy: false, error: refused, beside: fieldsNamed(form, refused) });
    }
  };
  const { error, beside } = state;
  const saidBeside = error !== null && beside.some((field) => error.fields[field.name]?.includes(error.message));
  return { busy: state.busy, error: saidBeside ? null : error, errors: error?.fields ?? {}, onSubmit };
}

type FieldProps = {
  label: string;
  /** The API's name of the field: its 422 messages are found under it. */
  name: string;
  /** The input's id, where two forms of a page send the same field (`field-<name>` otherwise). */
  id?: string;
  errors: Record<string, string[]>;
  type?: "text" | "email" | "password" | "search" | "url";
  autoComplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  value?: string;
  /** The text the field starts with, which the user then changes (a `value` would be put back on every render). */
  defaultValue?: string;
};

/** A labelled input whose errors are announced with it (aria-describedby) and mark it invalid. */
export function Field({ label, name, errors, type = "text", id = `field-${name}`, ...input }: FieldProps) {
  const messages = errors[name];
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        aria-invalid={messages ? "true" : undefined}
        aria-describedby={messages ? `${id}-error` : undefined}
        // Preact types each input type's attributes apart; these few are valid on all of them.
        {...({ type, ...input } as InputHTMLAttributes<HTMLInputElement>)}
      />
      {messages && (
        <p id={`${id}-error`} class="field-error">
          {messages.join(" ")}
        </p>
      )}
    </div>
  );
}

/** The form's message (what failed, or how many fields need a look), read out when it appears. */
export function FormError({ error }: { error: ApiError | null }) {
  return (
    <div role="alert" class={error ? "form-error" : undefined}>
      {error?.message}
    </div>
  );
}

/** A submit button that says it is busy and is not pressed twice. */
export function Submit({ busy, children }: { busy: boolean; children: ComponentChildren }) {
  return (
    <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
      {children}
    </button>
  );
}

/**
 * What an action on the page came to: its progress or result as a status line (read out politely, and kept in
 * the page so that screen readers hear the first message too), and what went wrong as an alert.
 */
export function ActionOutcome({ id, message, problem }: { id?: string; message: string; problem: string | null }) {
  return (
    <>
      <p id={id} role="status" class="muted">
        {message}
      </p>
      {problem && (
        <p role="alert" class="form-error">
          {problem}
        </p>
      )}
    </>
  );
}
