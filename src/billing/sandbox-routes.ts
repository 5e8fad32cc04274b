import { leaveBodyUnread } from "../http/raw-body.ts";
import { Elysia, t } from "elysia";
import { NotFoundError } from "../core/errors.ts";
import type { Accounts } from "../accounts/service.ts";
import { catalogue, formatPrice, type Offer } from "./catalogue.ts";
import type { Checkout } from "./checkout.ts";
import type { SandboxProvider } from "./sandbox-provider.ts";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const html = (body: string, status = 200) =>
  new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox checkout</title></head><body ` +
      `style="font-family:sans-serif;max-width:28rem;margin:3rem auto">${body}</body></html>`,
    {
      status,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    },
  );

function payPage(reference: string, offer: Offer, email: string): string {
  return `<h1>Sandbox checkout</h1>
<p>No money changes hands: this page stands in for a payment provider.</p>
<p><strong>${escapeHtml(offer.description)}</strong>: ${escapeHtml(formatPrice(offer))}</p>
<p>Account: ${escapeHtml(email)}</p>
<form method="post" action="/sandbox/checkout/${encodeURIComponent(reference)}/complete"><button type="submit">Pay</button></form>
<p><a href="/account">Cancel and go back to your account</a></p>`;
}

/**
 * The sandbox provider's own pages (public: the signed reference in the path is the capability).
 * The checkout page shows the offer and a Pay button; completing sends the signed webhook.
 */
export function sandboxRoutes({ checkout, sandbox, accounts }: { checkout: Checkout; sandbox: SandboxProvider; accounts: Accounts }) {
  const detail = (summary: string) => ({ tags: ["Sandbox payment provider"], summary });
  const params = t.Object({ reference: t.String({ maxLength: 600 }) });
  const openCheckout = (token: string) => {
    const reference = checkout.reference(token, "open");
    if (!reference) throw new NotFoundError("Checkout not found or expired.");
    return { reference, offer: catalogue[reference.offer] };
  };

  return new Elysia({ name: "sandbox-routes" })
    .get(
      "/sandbox/checkout/:reference",
      async ({ params }) => {
        const { reference, offer } = openCheckout(params.reference);
        const user = await accounts.findById(reference.userId);
        if (!user) throw new NotFoundError("Checkout not found or expired.");
        return html(payPage(params.reference, offer, user.email));
      },
      { params, detail: detail("Sandbox checkout page (HTML)") },
    )
    .post(
      "/sandbox/checkout/:reference/complete",
      async ({ params, request }) => {
        const { offer } = openCheckout(params.reference);
        const delivery = await sandbox.completePayment(params.reference, offer);
        if (!delivery.delivered) {
          const reached = delivery.status === null ? "could not reach it" : `got status ${delivery.status}`;
          return Response.json({ message: `The sandbox sent the payment webhook to ${sandbox.webhookUrl} and ${reached}.` }, { status: 502 });
        }
        // A browser submitting the Pay form gets a page; scripts and tests get JSON.
        if ((request.headers.get("accept") ?? "").includes("text/html"))
          // Back to the app at this page's own origin: the checkout URL named the address the app was opened at.
          return html(`<h1>Payment complete</h1><p>${escapeHtml(offer.description)} is active.</p><p><a href="/account">Back to your account</a></p>`);
        return { success: true, webhook_status: delivery.status };
      },
      { params, parse: leaveBodyUnread, detail: detail("Pay in the sandbox: sends the signed checkout.completed webhook") },
    );
}
