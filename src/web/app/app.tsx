import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from "preact-iso";
import { Layout } from "./layout.tsx";
import { pages, type Page } from "./pages.ts";
import { NotFound } from "./pages/not-found.tsx";
import { useSession } from "./session.ts";
import { Redirect } from "./ui/navigation.tsx";

/** A page behind its access rule: without a session, sign in first and come back; with one, skip the sign-in forms. */
function Guarded({ page, ...props }: { page: Page } & Record<string, unknown>) {
  const current = useSession();
  const signedIn = current != null;
  const { url } = useLocation();
  // Until the API says whether the session cookie is live (one request per page load), only public pages draw.
  if (current === undefined && page.access !== "public") return null;
  if (page.access === "signed-in" && !signedIn) return <Redirect to={`/login?next=${encodeURIComponent(url)}`} />;
  if (page.access === "signed-out" && signedIn) return <Redirect to="/" />;
  const Component = page.component;
  return <Component {...props} />;
}

/** After a navigation, focus moves to the page (as a new document load would), so keyboard and screen-reader users start there. */
const focusPage = () => document.getElementById("main")?.focus();

export function App() {
  return (
    <LocationProvider>
      <Layout>
        <ErrorBoundary>
          <Router onRouteChange={focusPage}>
            {pages.map((page) => (
              <Route key={page.path} path={page.path} component={Guarded} page={page} />
            ))}
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </Layout>
    </LocationProvider>
  );
}
