/** Member's pages (runtime/http/pages.ts loads every `*.pages.ts`): see pages/member-pages.ts. */
import type { PageSite } from '../../runtime';
import { errorPage, KIT_ASSETS } from '../_platform/pages/kit';
import { MEMBER_PAGES, memberPageRoutes } from './pages/member-pages';

export function pages(_env: NodeJS.ProcessEnv): PageSite {
  return {
    routes: memberPageRoutes(),
    assets: [...KIT_ASSETS],
    errorPage,
    entries: [
      {
        href: MEMBER_PAGES.signIn,
        title: 'Member sign-in',
        text: 'where members sign in when no member application is configured (MEMBER_APP_URL)',
      },
    ],
  };
}
