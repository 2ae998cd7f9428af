// screenshot.mjs - a picture of a page in headless Chromium, as a reader
// sees it in a light theme: the top of the page, <width> pixels wide.
//
//   node screenshot.mjs <page.html> <out.png> [<width> [<height>]]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const [file, out, width = '1000', height = '1100'] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
const args = ['--user-data-dir=' + profile, '--no-first-run', '--disable-gpu', '--disable-extensions',
	'--disable-background-networking', '--disable-component-update', '--hide-scrollbars', '--disable-dev-shm-usage'];
if (process.getuid && process.getuid() === 0)
	args.push('--no-sandbox');
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args });
try {
	const page = await browser.newPage();
	const url = pathToFileURL(resolve(file)).href;
	// the page asks for nothing; should it, the picture would show it missing
	await page.setRequestInterception(true);
	page.on('request', (r) => (r.url() === url || r.url().startsWith('data:') ? r.continue() : r.abort()));
	await page.setViewport({ width: +width, height: +height });
	await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
	await page.goto(url, { waitUntil: 'load' });
	const tall = await page.evaluate(() => document.documentElement.scrollHeight);
	const png = await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: +width, height: Math.min(+height, tall) } });
	writeFileSync(out, png);
	console.log(`${out}: ${png.length} bytes, ${width}x${Math.min(+height, tall)}`);
} finally {
	await browser.close();
	rmSync(profile, { recursive: true, force: true });
}
