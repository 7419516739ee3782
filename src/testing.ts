/** The package's `card-sandbox/testing` entry point. */
export * from './kits/testing.js'
