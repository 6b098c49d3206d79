/** Member's pages (runtime/http/pages.ts loads every `*.pages.ts`): see pages/member-pages.ts. */
import type { PageSite } from '../../runtime';
import { errorPage, KIT_ASSETS } from '../_platform/pages/kit';
import { memberPageRoutes } from './pages/member-pages';

export function pages(_env: NodeJS.ProcessEnv): PageSite {
  return { routes: memberPageRoutes(), assets: [...KIT_ASSETS], errorPage };
}
