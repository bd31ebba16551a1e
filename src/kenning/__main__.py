from kenning.entry.cli import main

main()
