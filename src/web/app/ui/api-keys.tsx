import { useEffect, useState } from "preact/hooks";
import { ApiError, api, call, type components } from "../api.ts";
import { Field, FormError, Submit, useForm } from "./form.tsx";
import { dateTime } from "./format.ts";

type ApiKey = components["schemas"]["ApiKey"];
type CreatedApiKey = components["schemas"]["CreatedApiKey"];

/** A key just made: the only time it can be read, so it is shown with a button that copies it. */
function NewKey({ created }: { created: CreatedApiKey }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(created.key);
    setCopied(true);
  };
  return (
    <div class="notice" role="status">
      <p>Your new key “{created.name}”. Copy it now: it will not be shown again.</p>
      <p class="secret">
        <code>{created.key}</code>
        <button type="button" onClick={copy}>
          {copied ? "Copied" : "Copy key"}
        </button>
      </p>
    </div>
  );
}

/** A listed key, revoked in two steps so that one stray press does not break an integration. */
function KeyRow({ item, onRevoked }: { item: ApiKey; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const revoke = async () => {
    try {
      await call(api.DELETE("/api/api-keys/{id}", { params: { path: { id: item.id } } }));
      onRevoked();
    } catch (error) {
      setProblem(ApiError.of(error).message);
    }
  };
  return (
    <li>
      <span>
        <strong>{item.name}</strong> <code>{item.prefix}…</code> <small>created {dateTime(item.created_at)}</small>
      </span>
      {confirming ? (
        <span class="actions">
          <button type="button" class="danger" onClick={revoke}>
            Confirm revoking {item.name}
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Revoke {item.name}
        </button>
      )}
      {problem && <p class="form-error">{problem}</p>}
    </li>
  );
}

/** API keys (GET/POST/DELETE /api/api-keys): paid plans only, which the API enforces and this page says up front. */
export function ApiKeys({ paid }: { paid: boolean }) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const load = () =>
    call(api.GET("/api/api-keys"))
      .then(setKeys)
      .catch((error: unknown) => setProblem(ApiError.of(error).message));
  useEffect(() => {
    if (paid) void load();
  }, [paid]);
  const form = useForm(async (data, element) => {
    const name = String(data.get("name") ?? "").trim();
    setCreated(await call(api.POST("/api/api-keys", { body: name === "" ? {} : { name } })));
    element.reset();
    await load();
  });
  return (
    <section aria-labelledby="api-keys">
      <h2 id="api-keys">API keys</h2>
      {!paid ? (
        <p>API keys need a paid plan: upgrade to Pro above to create keys for your integrations.</p>
      ) : (
        <>
          {created && <NewKey created={created} />}
          <form onSubmit={form.onSubmit} noValidate class="inline">
            <FormError error={form.error} />
            <Field label="Key name" name="name" maxLength={255} errors={form.errors} />
            <Submit busy={form.busy}>Create key</Submit>
          </form>
          {problem && <p class="form-error">{problem}</p>}
          {keys && keys.length === 0 && <p>No keys yet.</p>}
          {keys && keys.length > 0 && (
            <ul class="keys" aria-label="Your API keys">
              {keys.map((item) => (
                <KeyRow key={item.id} item={item} onRevoked={load} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
