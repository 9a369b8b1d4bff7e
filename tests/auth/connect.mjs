// A user connecting an account in a real browser: headless Chromium (driven by
// playwright-core, no browser download) opens the sign-in link an MCP server asked the
// client to open, and signs in and consents on whatever pages of the authorization server
// of harness.mjs (oidc-provider's own login and consent pages) come up, until the browser
// is back at the MCP server (`/oauth/callback`, or `/oauth/verified` when the server
// refuses the user). A session the browser already has may skip the login. Prints the
// text of the page it ends on; exits non-zero unless it says the account is connected.
//
//   node connect.mjs SIGN_IN_URL LOGIN CHROMIUM
import { chromium } from 'playwright-core';

const [url, login, executablePath] = process.argv.slice(2);
if (!url || !login || !executablePath) {
  console.error('usage: node connect.mjs SIGN_IN_URL LOGIN CHROMIUM');
  process.exit(2);
}

const back = /\/oauth\/(callback|verified)\?/;
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(url);
  // Each step is one of the provider's pages: its login form (any login, any password),
  // or its consent page (one button grants what was asked for).
  for (let step = 0; step < 8 && !back.test(page.url()); step++) {
    await page.waitForSelector('button[type="submit"]');
    if (await page.locator('input[name="login"]').count()) {
      await page.fill('input[name="login"]', login);
      await page.fill('input[name="password"]', 'any');
    }
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    await page.waitForLoadState();
  }
  const outcome = await page.textContent('#outcome');
  console.log(outcome);
  if (!outcome?.includes('is connected')) process.exit(1);
} finally {
  await browser.close();
}
