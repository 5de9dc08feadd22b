#!/usr/bin/env python3
"""Exit 0 when every socket listening on the given TCP port is bound to 127.0.0.1 (IPv4 or IPv4-mapped IPv6)."""
import sys

port = int(sys.argv[1])
loopback = {"0100007F", "0000000000000000FFFF00000100007F"}
found = []
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        lines = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        fields = line.split()
        address, hex_port = fields[1].split(":")
        if int(hex_port, 16) == port and fields[3] == "0A":
            found.append(address)
print("listening on port %d: %s" % (port, ", ".join(found) or "nothing"))
sys.exit(0 if found and all(address in loopback for address in found) else 1)
