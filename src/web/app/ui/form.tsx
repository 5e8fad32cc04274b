import type { ComponentChildren, InputHTMLAttributes } from "preact";
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";

type FormState = { busy: boolean; error: ApiError | null };

/**
 * A form's submission: the handler gets the form's fields, and an ApiError it throws is kept for the form to
 * show, its message above the fields and each field's messages (422 `errors`) next to that field.
 */
export function useForm(handler: (data: FormData, form: HTMLFormElement) => Promise<void>) {
  const [state, setState] = useState<FormState>({ busy: false, error: null });
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setState({ busy: true, error: null });
    try {
      await handler(new FormData(form), form);
      setState({ busy: false, error: null });
    } catch (error) {
      setState({ busy: false, error: ApiError.of(error) });
    }
  };
  return { busy: state.busy, error: state.error, errors: state.error?.fields ?? {}, onSubmit };
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
