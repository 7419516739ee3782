/** The package's `card-sandbox/jest` entry point. */
export * from './kits/jest.js'
export { default } from './kits/jest.js'
