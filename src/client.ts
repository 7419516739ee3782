/** The package's `card-sandbox/client` entry point. */
export * from './clients/client.js'
