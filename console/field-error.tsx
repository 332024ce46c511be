/**
 * A 400's `param` shown beside the field it names rather than atop the form: the field is marked
 * aria-invalid and described by the message, so a screen reader hears why when it gets there.
 */
import { ApiError } from "./api.ts";

/** A form's failure: the message, and the field it belongs to when the server named one of the form's fields. */
export interface FormError {
  message: string;
  field?: string;
}

/** `err` as a FormError; `allowed_origins.2` belongs to `allowed_origins` (one field holds the whole list). */
export function formError(err: unknown, fields: readonly string[]): FormError {
  const message = (err as Error).message;
  const field = err instanceof ApiError ? err.param?.split(".")[0] : undefined;
  return field && fields.includes(field) ? { message, field } : { message };
}

/**
 * What a field shows of `error`: its input's props (invalid, described by the message) and the
 * message itself (role=alert: announced as it appears), or nothing when the error is not its own.
 * `scope` keeps the ids apart when two forms (new key, edit key) are on the page at once.
 */
export function fieldError(error: FormError | null, field: string, scope: string) {
  if (error?.field !== field) return { props: {} as { "aria-describedby"?: string }, message: null };
  const id = `${scope}-${field}-error`;
  return {
    props: { "aria-invalid": true, "aria-describedby": id },
    message: (
      <span class="error" role="alert" id={id}>
        {error.message}
      </span>
    ),
  };
}

/** The message atop a form, when no field of the form is named. */
export function FormAlert({ error }: { error: FormError | null }) {
  if (!error || error.field) return null;
  return (
    <p class="error full" role="alert">
      {error.message}
    </p>
  );
}
