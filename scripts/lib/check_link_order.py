"""Checks that a binary was linked the way `--features link-order` of mcp-examples asks.

    check_link_order.py BINARY ORDER_FILE

Passes when the binary has packed relative relocations (a `.relr.dyn` section) and the
functions of ORDER_FILE that it contains lie in the file's order (an ordinary link puts
about half of such neighbours the other way round). When the binary contains few of them
(another toolchain), it says so and checks the relocations only. Needs `readelf` and `nm` (binutils).
"""

import subprocess
import sys


def main(binary, order_file):
    sections = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True,
                              check=True).stdout
    if ".relr.dyn" not in sections:
        sys.exit(f"{binary}: no .relr.dyn section; relocations were not packed")

    address = {}
    symbols = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    for line in symbols.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            address[fields[2]] = int(fields[0], 16)
    with open(order_file) as f:
        names = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    placed = [address[name] for name in names if name in address]
    if len(placed) < 50:
        # The names carry hashes of the toolchain and the dependencies' versions: another
        # toolchain finds few of them. The link still works, only without the order.
        print(f"{binary}: relocations packed; only {len(placed)} of the {len(names)} ordered "
              f"functions found, so the file was written by another toolchain or for other "
              f"dependencies (regenerate it with scripts/link-order.sh)")
        return
    in_order = sum(1 for a, b in zip(placed, placed[1:]) if b > a)
    share = in_order / (len(placed) - 1)
    print(f"{binary}: {len(placed)} of {len(names)} ordered functions present, "
          f"{share:.0%} of neighbours in order; relocations packed")
    if share < 0.95:
        sys.exit(f"{binary}: the functions are not laid out in the order of {order_file}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
