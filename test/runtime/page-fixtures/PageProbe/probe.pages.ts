/** Pages of the page mechanism's test (runtime/http/pages.ts): they show what the runtime gave them. */
import type { PageCtx, PageSite } from '../../../../runtime';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${esc(title)}</title></head><body><main>${body}</main></body></html>`;

let posts = 0;

export function pages(_env: NodeJS.ProcessEnv): PageSite {
  return {
    assets: [{ path: '/pages/probe/probe.css', contentType: 'text/css', body: 'body{color:#123}' }],
    errorPage: (status, message) => html(`error ${status}`, `<p role="alert">${esc(message)}</p>`),
    routes: [
      {
        path: '/pages/probe/who/:name',
        get: async (ctx: PageCtx) => {
          const r = await ctx.call('PageProbe', 'whoami', undefined, { from: 'page' }, { token: ctx.cookie('probe') });
          return {
            html: html(
              'who',
              `<p id="name">${esc(ctx.params.name ?? '')}</p><pre id="answer">${esc(JSON.stringify(r))}</pre><p id="q">${esc(ctx.query.q ?? '')}</p>`,
            ),
          };
        },
      },
      {
        path: '/pages/probe/members',
        get: async (ctx: PageCtx) => {
          const r = await ctx.call('PageProbe', 'membersOnly', undefined, {}, { token: ctx.cookie('probe') });
          return {
            status: r.ok ? 200 : r.status,
            html: html('members', `<pre id="answer">${esc(JSON.stringify(r))}</pre>`),
          };
        },
      },
      {
        path: '/pages/probe/session',
        post: (ctx: PageCtx) => {
          posts++;
          ctx.setCookie('probe', ctx.form.token ?? '', { maxAgeSeconds: 60 });
          return { redirect: '/pages/probe/who/signed-in' };
        },
        get: () => ({ html: html('posts', `<p id="posts">${posts}</p>`) }),
      },
      {
        path: '/pages/probe/fail',
        get: () => {
          throw new Error('secret detail of the failure');
        },
      },
    ],
  };
}
