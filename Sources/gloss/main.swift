import Foundation
import GlossCommandLine

exit(await GlossCommand.main(CommandLine.arguments))
