// Stands in for a browser in the tests: opens the URL it is given and follows
// its redirects, as a person would who clicks nothing (there is nothing to
// click: the authorization endpoint asks for no login and no consent). Each
// URL is appended to the file named by DISCOVERY_TEST_BROWSER_LOG.
import { appendFileSync } from "node:fs";

const [url] = process.argv.slice(2);
appendFileSync(process.env.DISCOVERY_TEST_BROWSER_LOG, url + "\n");
const res = await fetch(url);
process.exitCode = res.ok ? 0 : 1;
