"""Checks that a binary was linked the way `--features link-order` of mcp-examples asks.

    check_link_order.py BINARY ORDER_FILE

Passes when the binary has packed relative relocations (a `.relr.dyn` section) and the
functions of ORDER_FILE that it contains lie in the file's order (an ordinary link puts
about half of such neighbours the other way round). When the binary contains few of them
(another toolchain), it says so and checks the relocations only.
"""

import struct
import sys


def read_elf(path):
    """Section names and the addresses of the function symbols of a 64-bit ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    # name, type, flags, addr, offset, size, link, info, addralign, entsize
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]

    def string(table, at):
        start = headers[table][4] + at
        return data[start:data.index(b"\0", start)].decode("utf-8", "replace")

    sections = {string(shstrndx, h[0]) for h in headers}
    functions = {}
    for h in headers:
        if h[1] != 2:  # SHT_SYMTAB
            continue
        for at in range(h[4], h[4] + h[5], 24):
            name, info, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", data, at)
            # STT_FUNC, defined here: a function of a shared library the binary calls (C
            # library functions, which the order file of a statically linked build names)
            # is listed too, undefined (section 0) and at address 0.
            if info & 0xF == 2 and shndx != 0:
                functions[string(h[6], name)] = value
    return sections, functions


def main(binary, order_file):
    sections, address = read_elf(binary)
    if ".relr.dyn" not in sections:
        sys.exit(f"{binary}: no .relr.dyn section; relocations were not packed")

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
