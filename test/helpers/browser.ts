import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

export { freePort } from './net';

/** Debian's chromium, driven by playwright-core (which never downloads a browser). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/**
 * `describe` for browser tests: skipped (with a warning) on a machine without chromium, but failing in CI, where
 * .ci/run installs it.
 */
export function browserDescribe(spec: string): jest.Describe {
  if (!haveChromium && !process.env.CI) {
    console.warn(
      `${spec}: skipped, no chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH). In CI this fails instead.`,
    );
  }
  return haveChromium || process.env.CI ? describe : describe.skip;
}

/** A headless chromium with a new empty profile. */
export async function launchChromium(): Promise<Browser> {
  if (!haveChromium)
    throw new Error(`CI is set but there is no chromium at ${CHROMIUM}: .ci/run installs it with apt-get.`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
