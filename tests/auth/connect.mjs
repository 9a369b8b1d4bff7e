// A user connecting an account in a real browser: headless Chromium (driven by
// playwright-core, no browser download) opens the sign-in link an MCP server asked the
// client to open, signs in at the authorization server of harness.mjs (oidc-provider's
// own login and consent pages), and follows the provider's redirect back to the MCP
// server's /oauth/callback. Prints the text of the page it ends on; exits non-zero when
// it does not end on a page saying the account is connected.
//
//   node connect.mjs SIGN_IN_URL LOGIN CHROMIUM
import { chromium } from 'playwright-core';

const [url, login, executablePath] = process.argv.slice(2);
if (!url || !login || !executablePath) {
  console.error('usage: node connect.mjs SIGN_IN_URL LOGIN CHROMIUM');
  process.exit(2);
}

const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(url);
  // oidc-provider's development login form: any login, any password.
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'any');
  await page.click('button[type="submit"]');
  // Its consent page: one button grants what the sign-in asked for.
  await page.waitForSelector('button[type="submit"]');
  await Promise.all([
    page.waitForURL(/\/oauth\/callback\?/),
    page.click('button[type="submit"]'),
  ]);
  const outcome = await page.textContent('#outcome');
  console.log(outcome);
  if (!outcome?.includes('is connected')) process.exit(1);
} finally {
  await browser.close();
}
