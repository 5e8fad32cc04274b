import type { ComponentChildren } from "preact";
import { useLocation } from "preact-iso";
import { api, call } from "./api.ts";
import { session, useSession } from "./session.ts";

/** A navigation link that tells assistive technology which page is open. */
function NavLink({ href, children }: { href: string; children: ComponentChildren }) {
  const { path } = useLocation();
  return (
    <a href={href} aria-current={path === href ? "page" : undefined}>
      {children}
    </a>
  );
}

/** Every page's frame: a skip link, the navigation (what a signed-in user can do, or how to sign in), the page. */
export function Layout({ children }: { children: ComponentChildren }) {
  const current = useSession();
  const { route } = useLocation();
  const signOut = async () => {
    // The session is ended on the server, which clears its cookie; if that fails (offline, already ended) the app forgets it all the same.
    await call(api.DELETE("/api/session")).catch(() => undefined);
    route("/login");
    session.end("signed-out");
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <nav aria-label="Main">
          <a class="brand" href="/">
            Scribe
          </a>
          {current ? (
            <ul>
              <li>
                <NavLink href="/">Transcriptions</NavLink>
              </li>
              <li>
                <NavLink href="/new">New transcription</NavLink>
              </li>
              <li>
                <NavLink href="/account">Account</NavLink>
              </li>
              <li>
                <button type="button" class="link" onClick={signOut}>
                  Sign out
                </button>
              </li>
            </ul>
          ) : current === null ? (
            <ul>
              <li>
                <NavLink href="/login">Sign in</NavLink>
              </li>
              <li>
                <NavLink href="/register">Create an account</NavLink>
              </li>
            </ul>
          ) : null}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
