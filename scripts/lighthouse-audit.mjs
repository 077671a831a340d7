// Lighthouse on one page of the site with a real cookie in the browser (nardy_site/lighthouse.py
// runs it). The CLI's --extra-headers adds a Cookie header to HTTP requests but not to the
// WebSocket handshake, so a player's game page would be seen as the player and its socket as
// an onlooker; here the session cookie is the browser's own, as a visitor's is.
//
//   node scripts/lighthouse-audit.mjs NODE_MODULES URL OUT.json mobile|desktop|roll [NAME=VALUE]
//
// mobile, desktop: a navigation audit (Lighthouse's default or desktop config).
// roll: a user flow on a game page as a phone (4x CPU slowdown applied by DevTools): load the
// page, then a timespan around one tap on "Roll the dice"; the report holds the tap's INP.
// NODE_MODULES: where the npm package lighthouse is installed (it brings puppeteer-core and
// chrome-launcher); the browser: CHROME_PATH (Debian's /usr/bin/chromium).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, url, out, mode, cookie] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const { default: lighthouse, desktopConfig, startFlow } = await load("lighthouse/core/index.js");
const chromeLauncher = await load("chrome-launcher/dist/index.js");
const { default: puppeteer } = await load("puppeteer-core/lib/esm/puppeteer/puppeteer-core.js");
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

/** The report of one navigation audit, or null after printing Lighthouse's runtime error. */
async function audit(page) {
  const flags = { output: "json", logLevel: "error", onlyCategories: CATEGORIES };
  const result = await lighthouse(url, flags, mode === "desktop" ? desktopConfig : undefined, page);
  if (result.lhr.runtimeError) {
    console.error(result.lhr.runtimeError.code, result.lhr.runtimeError.message);
    return null;
  }
  return result.report;
}

/** The flow of one roll: the page loaded, then the tap on Roll timed (INP). */
async function roll(page) {
  const flow = await startFlow(page, {
    flags: { throttlingMethod: "devtools", onlyCategories: ["performance"], logLevel: "error" },
  });
  await flow.navigate(url);
  await page.waitForSelector("#game[data-ready='true'] #roll-btn:not([hidden])", { timeout: 20000 });
  await flow.startTimespan();
  await page.tap("#roll-btn");
  await page.waitForSelector("#board .can-move, #pass-btn:not([hidden])", { timeout: 20000 });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await flow.endTimespan();
  return JSON.stringify(await flow.createFlowResult());
}

const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"],
});
let report = null;
try {
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
  const page = await browser.newPage();
  if (cookie) {
    const at = cookie.indexOf("=");
    await page.setCookie({ name: cookie.slice(0, at), value: cookie.slice(at + 1), url });
  }
  report = mode === "roll" ? await roll(page) : await audit(page);
  if (report) writeFileSync(out, report);
  await browser.disconnect();
} finally {
  await chrome.kill();
}
process.exit(report ? 0 : 1);
