/** The package's `card-sandbox/jest/teardown` entry point. */
export * from './kits/jest-teardown.js'
export { default } from './kits/jest-teardown.js'
