import type { AnyComponent } from "preact";
import { lazy } from "preact-iso";
import { TaskList } from "./pages/tasks.tsx";
import { Login } from "./pages/login.tsx";
import { Register } from "./pages/register.tsx";

/**
 * Who may open a page: anyone, only a signed-in user (others are sent to sign in, and back after), or only a
 * signed-out one (the forms to sign in; a signed-in user goes to the task list).
 */
export type Access = "public" | "signed-in" | "signed-out";
export type Page = { path: string; component: AnyComponent; access: Access };

/**
 * The app's pages, one line each. The first page a visitor sees is in the main bundle; the others are
 * `lazy()`: their own files (chunks), fetched when first opened, so the first load stays small.
 */
export const pages: Page[] = [
  { path: "/", component: TaskList, access: "signed-in" },
  { path: "/login", component: Login, access: "signed-out" },
  { path: "/register", component: Register, access: "signed-out" },
  { path: "/auth/callback", component: lazy(() => import("./pages/auth-callback.tsx")), access: "public" },
  { path: "/account", component: lazy(() => import("./pages/account.tsx")), access: "signed-in" },
  { path: "/share/tasks/:id", component: lazy(() => import("./pages/share.tsx")), access: "public" },
  { path: "/tasks/:id", component: lazy(() => import("./pages/transcript.tsx")), access: "signed-in" },
  { path: "/new", component: lazy(() => import("./pages/new.tsx")), access: "signed-in" },
];
