import { t } from "elysia";

/**
 * Text a person reads back as a name (task, folder, account, API key, file): no control characters
 * (C0, DEL, C1: NUL, tab, CR/LF, escape sequences) and well-formed UTF-16 (no lone surrogates, which
 * no UTF-8 output can carry). Written without the `u` flag, as TypeBox compiles patterns without it:
 * anything but a control character or a surrogate, or a high surrogate followed by a low one.
 */
export const namePattern = "^(?:[^\\u0000-\\u001f\\u007f-\\u009f\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$";

export const nameText = (options: { minLength?: number; maxLength: number; description?: string }) => t.String({ ...options, pattern: namePattern });
