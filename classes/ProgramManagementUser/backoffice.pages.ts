/** The back office's pages (runtime/http/pages.ts loads every `*.pages.ts`): see pages/backoffice-pages.ts. */
import type { PageSite } from '../../runtime';
import { errorPage, KIT_ASSETS } from '../_platform/pages/kit';
import { BACKOFFICE_PAGES, backOfficePageRoutes } from './pages/backoffice-pages';

export function pages(_env: NodeJS.ProcessEnv): PageSite {
  return {
    routes: backOfficePageRoutes(),
    assets: [...KIT_ASSETS],
    errorPage,
    entries: [
      {
        href: BACKOFFICE_PAGES.signIn,
        title: 'Back-office sign-in',
        text: 'where back-office users sign in when no back office is configured (BACKOFFICE_URL)',
      },
    ],
  };
}
