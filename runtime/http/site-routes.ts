/**
 * What a person or a tool finds besides the API: the landing page, the API
 * reference (/docs, /openapi.json), the mail the service wrote instead of
 * sending, the operator console, and the classes' pages.
 */
import express from 'express';
import { devMailRouter } from '../mail/dev-page';
import { CONSOLE_PATH, operatorConsole } from './console';
import { openApiRouter } from './openapi';
import { escapeHtml, pagesRouter } from './pages';
import type { HttpDeps } from './deps';

/** The stylesheet of the service's own pages: readable, no framework. */
const SITE_CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.5rem}a{color:#0b57d0}li{margin:.5rem 0}code{background:#f1f3f6;padding:0 .25rem;border-radius:3px}`;

/** The page at `/`: the project and where to go from here. */
function landingPage(projectId: string, links: readonly { href: string; title: string; text: string }[]): string {
  const items = links
    .map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a>: ${escapeHtml(l.text)}</li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(projectId)}</title><link rel="stylesheet" href="/site.css"></head>
<body><main><h1>${escapeHtml(projectId)}</h1><p>This service answers calls at <code>/${escapeHtml(projectId)}/CALL/&lt;Class&gt;/&lt;method&gt;/&lt;instanceId&gt;</code>.</p>
<ul>${items}</ul></main></body></html>`;
}

/**
 * Mounted before the JSON body parser: the console parses its own bodies,
 * after its authentication, and pages read forms.
 */
export function siteRoutes(deps: HttpDeps): express.Router {
  const router = express.Router();
  // what someone opening the service's address finds: where to go next (a browser gets a page, a client JSON)
  router.get('/', (req, res) => {
    const links = [
      { href: '/docs', title: 'API reference', text: 'every class and method, with a form to try each' },
      { href: '/openapi.json', title: 'OpenAPI document', text: 'the same, for code generators' },
      ...(deps.devMail
        ? [
            {
              href: '/dev/mail',
              title: 'Mail sent',
              text: 'the messages this service wrote instead of sending (SMTP_URL is unset)',
            },
          ]
        : []),
      // where the classes' pages start (a sign-in), for someone trying the service with a browser
      ...(deps.pages ?? []).flatMap((site) => site.entries ?? []),
      ...(deps.console
        ? [
            {
              href: '/admin/queues',
              title: 'Operator console',
              text: 'queues, failed jobs and dead letters, for developers (sign in with your access token)',
            },
          ]
        : []),
      { href: '/health', title: 'Health', text: 'whether this process answers' },
    ];
    if (req.accepts(['json', 'html']) !== 'html') {
      res.json({
        project: deps.projectId,
        calls: `/${deps.projectId}/CALL/<Class>/<method>/<instanceId>`,
        links: links.map(({ href, title }) => ({ href, title })),
      });
      return;
    }
    res.setHeader(
      'content-security-policy',
      "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    res.type('html').send(landingPage(deps.projectId, links));
  });
  // browsers ask every site for an icon: an empty answer, not a JSON 404 in their consoles
  router.get('/favicon.ico', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=86400');
    res.status(204).end();
  });
  router.get('/site.css', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=3600');
    res.type('css').send(SITE_CSS);
  });
  // the API reference: /openapi.json and its interactive page /docs
  router.use(openApiRouter(deps.registry, { projectId: deps.projectId }));
  // mounted under its path: other requests do not walk its routes
  if (deps.devMail) router.use('/dev/mail', devMailRouter(deps.devMail));
  // before the JSON body parser below: the console parses its own bodies, after its authentication
  if (deps.console) router.use(CONSOLE_PATH, operatorConsole(deps.console));
  // before the JSON body parser below: pages read forms
  if (deps.pages?.length) router.use(pagesRouter(deps.pages, deps));
  return router;
}
