from fmhactl.cli.app import main

main()
