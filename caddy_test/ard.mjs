// Validates an AI Catalog the way Lighthouse's Agentic Browsing category
// does (its Agentic Resource Discovery conformance tester: the JSON schema,
// then the rules the schema cannot say), and prints the findings as JSON:
//
//   node caddy_test/ard.mjs <url of ai-catalog.json>
//   {"errors": [{"element", "message"}], "warnings": [...]}
import { ConformanceTester } from 'lighthouse/third-party/ard/ard.js';

const response = await fetch(process.argv[2]);
if (!response.ok) throw new Error(`${process.argv[2]}: HTTP ${response.status}`);
const tester = new ConformanceTester();
tester.validate_manifest(await response.text(), 'ai-catalog.json');
process.stdout.write(JSON.stringify({ errors: tester.errors, warnings: tester.warnings }));
