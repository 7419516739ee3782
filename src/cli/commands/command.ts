import type { HelpRow } from '../help.js'

/** The shape of one `card-sandbox <name>` command; src/cli/main.ts lists them (COMMANDS). */
export type Command = {
  name: string
  /** `name` and its arguments, as the help shows them. */
  usage: string
  summary: string
  /** The lines of its own options in `card-sandbox help <name>`. */
  help: HelpRow[]
  /** Runs it with the arguments after its name; resolves to the exit code. */
  run(args: string[], env: NodeJS.ProcessEnv): Promise<number>
}
