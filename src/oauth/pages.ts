import { SCOPES } from '../common/auth/scopes';

/** Text for HTML: the five characters that could start markup or end an attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#111}
label{display:block;margin-top:1rem;font-weight:600}input{font:inherit;width:100%;padding:.5rem;box-sizing:border-box}
button{font:inherit;margin:1.25rem .5rem 0 0;padding:.5rem 1.25rem}[role=alert]{color:#a00;font-weight:600}
ul{padding-left:1.25rem}code{font-size:.9em}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export interface LoginView {
  action: string;
  csrf: string;
  appName: string;
  workspaceName: string;
  email?: string;
  error?: string;
}

export function loginPage(v: LoginView): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p><strong>${escapeHtml(v.appName)}</strong> asks for access to the workspace <strong>${escapeHtml(v.workspaceName)}</strong>. Sign in to continue.</p>
${v.error ? `<p role="alert" id="error">${escapeHtml(v.error)}</p>` : ''}
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(v.email ?? '')}"${v.error ? ' aria-describedby="error"' : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export interface ConsentView {
  action: string;
  csrf: string;
  appName: string;
  workspaceName: string;
  userEmail: string;
  scopes: string[];
}

export function consentPage(v: ConsentView): string {
  const items = v.scopes
    .map((s) => `<li>${escapeHtml(SCOPES[s as keyof typeof SCOPES] ?? s)} <code>${escapeHtml(s)}</code></li>`)
    .join('\n');
  return page(
    `Allow ${v.appName}?`,
    `<h1>Allow ${escapeHtml(v.appName)} to act for you?</h1>
<p>Signed in as <strong>${escapeHtml(v.userEmail)}</strong>. The app <strong>${escapeHtml(v.appName)}</strong> will be able to do the following in the workspace <strong>${escapeHtml(v.workspaceName)}</strong>, within what your role there allows:</p>
<ul>
${items || '<li>Nothing beyond knowing who you are</li>'}
</ul>
<form method="post" action="${escapeHtml(v.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<p>You can take the access back at any time: the app's tokens stop working when it revokes them or when an administrator removes the app.</p>`,
  );
}

export function errorPage(error: string, description: string): string {
  return page(
    'Sign-in request failed',
    `<h1>This request cannot continue</h1>
<p role="alert">${escapeHtml(description || error)}</p>
<p>Error code: <code>${escapeHtml(error)}</code>. Go back to the app and start again.</p>`,
  );
}
