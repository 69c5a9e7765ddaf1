#!/usr/bin/env python3
"""Writes the binary seed inputs of fuzz_narrowphase and fuzz_world (corpus/<target>/*.bin).

The byte layouts are those the targets decode (tests/fuzz/fuzz_support.hpp ByteReader, fuzz_narrowphase.cpp Decoder,
fuzz_world.cpp Args): run this again after changing a decoder. Usage: tests/fuzz/make_seeds.py (from anywhere).
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    path = os.path.join(HERE, "corpus", target, name + ".bin")
    with open(path, "wb") as f:
        f.write(data)


# ---- ByteReader encodings

def grid(v, rng):
    """small_float: int16 little endian, value * 32768 / range."""
    q = max(-32768, min(32767, round(v * 32768.0 / rng)))
    return struct.pack("<h", q)


def mixed(v, rng):
    """mixed_float: kind byte 0 (grid) then the grid value."""
    return b"\x00" + grid(v, rng)


def raw(v):
    return struct.pack("<f", v)


def quat_unit(w, x, y, z):
    """quaternion(): a selector byte with a low bit set (unit from four grid values of range 1)."""
    n = math.sqrt(w * w + x * x + y * y + z * z)
    return b"\x01" + b"".join(grid(c / n * 0.999, 1.0) for c in (w, x, y, z))


def axis_angle(axis, degrees):
    h = math.radians(degrees) / 2
    n = math.sqrt(sum(a * a for a in axis))
    return quat_unit(math.cos(h), *(a / n * math.sin(h) for a in axis))


# ---- fuzz_narrowphase: flags, Highway target, range byte (range = 2^(b % 32 - 8)), shapes

TRIANGLE, RAW, RAW_AXES_A, RAW_AXES_B, DEGENERATE, DOUBLE = 1, 2, 4, 8, 16, 32
RANGE8 = 11  # 2^3 = 8 m


def np_box(center, quat, half, rng=8.0):
    return b"".join(mixed(c, rng) for c in center) + quat + b"".join(mixed(h, rng) for h in half)


def np_vec(v, rng=8.0):
    return b"".join(mixed(c, rng) for c in v)


def narrowphase_seeds():
    ident = quat_unit(1, 0, 0, 0)
    t = "fuzz_narrowphase"
    write(t, "boxes_overlapping", bytes([DOUBLE, 0, RANGE8]) + np_box((0, 0, 0), ident, (1, 1, 1)) +
          np_box((1.5, 0.2, 0), axis_angle((0, 0, 1), 30), (1, 0.5, 0.5)) + np_vec((0, -1, 0)))
    write(t, "boxes_sweep_hit", bytes([0, 1, RANGE8]) + np_box((0, 0, 0), axis_angle((0, 1, 0), 10), (0.5, 0.5, 0.5)) +
          np_box((5, 0.3, 0), ident, (1, 1, 1)) + np_vec((6, 0, 0)))
    write(t, "boxes_edge_edge", bytes([0, 2, RANGE8]) + np_box((0, 0, 0), axis_angle((1, 0, 0), 45), (1, 1, 1)) +
          np_box((0, 2.2, 0.1), axis_angle((0, 1, 1), 45), (1, 1, 1)) + np_vec((0, -0.5, 0)))
    write(t, "boxes_touching_flat", bytes([0, 3, RANGE8]) + np_box((0, 0, 0), ident, (1, 1, 1)) +
          np_box((0, 2, 0), ident, (1, 1, 1)) + np_vec((0, 0, 0)))
    write(t, "box_flat_and_segment", bytes([0, 0, RANGE8]) + np_box((0, 0, 0), ident, (1, 0, 1)) +
          np_box((0.5, 0, 0.5), axis_angle((1, 1, 0), 30), (0, 0, 2)) + np_vec((0, 1, 0)))
    write(t, "box_on_triangle", bytes([TRIANGLE | DOUBLE, 0, RANGE8]) + np_box((0, 0.9, 0), ident, (1, 1, 1)) +
          np_vec((-3, 0, -3)) + np_vec((-3, 0, 3)) + np_vec((3, 0, -3)) + np_vec((0, -2, 0)))
    write(t, "box_triangle_edge", bytes([TRIANGLE, 0, RANGE8]) + np_box((0, 1, 0), axis_angle((1, 0, 1), 40), (0.5, 1, 0.5)) +
          np_vec((-1, 0, 0)) + np_vec((1, 0, 0)) + np_vec((0, 2, 1)) + np_vec((0.5, 0, 0)))
    write(t, "degenerate_triangle", bytes([TRIANGLE | DEGENERATE, 0, RANGE8]) + np_box((0, 0, 0), ident, (1, 1, 1)) +
          np_vec((-2, 0.5, 0)) + np_vec((2, 0.5, 0)) + np_vec((0, 0, 0)) + b"\x00" + grid(0.5, 4.0) + np_vec((0, 0, 0)))
    huge = 31  # 2^23 m
    write(t, "huge_boxes", bytes([0, 0, huge]) + np_box((1e6, 0, 0), ident, (3e6, 1, 1), 2 ** 23) +
          np_box((1e6, 1, 0), axis_angle((0, 0, 1), 1), (1, 1, 1), 2 ** 23) + np_vec((0, -4e6, 0), 2 ** 23))
    floats = lambda *v: b"".join(raw(x) for x in v)
    write(t, "raw_nan_and_denormal", bytes([RAW | RAW_AXES_A, 0, 0]) + floats(0, 0, 0) +
          floats(1, 0, 0, 0, 1, 0, 0, 0, 1) + floats(1e-45, 1, 1) + floats(float("nan"), 0, 0) +
          floats(1, 0, 0, 0, 1, 0, 0, 0, 1) + floats(1, 1, 1) + floats(0, float("inf"), 0))
    write(t, "raw_axes_not_orthonormal", bytes([RAW | RAW_AXES_A | RAW_AXES_B, 0, 0]) + floats(0, 0, 0) +
          floats(1, 0, 0, 0, 1, 0, 0, 0.001, 1) + floats(1, 1, 1) + floats(0.5, 0.5, 0) +
          floats(2, 0, 0, 0, 1, 0, 0, 0, 1) + floats(1, 1, 1) + floats(0, 0, 0))
    write(t, "negative_extent", bytes([0, 0, RANGE8]) + np_box((0, 0, 0), ident, (1, -1, 1)) +
          np_box((0.5, 0, 0), ident, (1, 1, 1)) + np_vec((1, 0, 0)))


# ---- fuzz_world: settings byte, then calls (slot byte and arguments)

CREATE, DESTROY, SET_POSITION, SET_VELOCITY, SET_ORIENTATION, SET_FILTER, WAKE, WAKE_ALL, RAYCAST, RAYCAST_CONST, \
    OVERLAP, OVERLAP_CONST, SWEEP, SWEEP_CONST, MOVE, ADD_MESH, REMOVE_MESH, STEP = range(18)
DYNAMIC, STATIC, KINEMATIC = 1, 0, 5  # the kind byte of a body: mass 1 kg, mass 0, kinematic


def w_vec(v, rng):
    return b"".join(mixed(c, rng) for c in v)


def create(pos, half, vel=(0, 0, 0), kind=DYNAMIC, quat=None):
    return (bytes([CREATE]) + w_vec(pos, 40.0) + (quat or quat_unit(1, 0, 0, 0)) + w_vec(half, 2.0) +
            w_vec(vel, 20.0) + bytes([kind]))


def body(k):
    return bytes([k])


def steps(n):
    return bytes([STEP, 0]) * n


def floor_mesh(y, r):
    return bytes([ADD_MESH, 0]) + mixed(y, 10.0) + mixed(r, 50.0) + b"\x00\x00"


def level_piece(k):
    return bytes([ADD_MESH, 1]) + struct.pack("<H", k) + b"\x00\x00"


def world_seeds():
    t = "fuzz_world"
    write(t, "floor_box_steps", bytes([0]) + floor_mesh(0, 10) + create((0, 2, 0), (0.5, 0.5, 0.5)) + steps(20))
    write(t, "stack_and_queries", bytes([1]) + create((0, -0.5, 0), (5, 0.5, 5), kind=STATIC) +
          create((0, 0.5, 0), (0.5, 0.5, 0.5)) + create((0.1, 1.6, 0), (0.5, 0.5, 0.5)) + steps(4) +
          bytes([RAYCAST]) + w_vec((0, 5, 0), 40.0) + w_vec((0, -1, 0), 10.0) + b"\xff" + b"\x00" + b"\x01" +
          bytes([OVERLAP]) + w_vec((0, 1, 0), 40.0) + quat_unit(1, 0, 0, 0) + w_vec((1, 1, 1), 2.0) + b"\x00" +
          bytes([SWEEP_CONST]) + w_vec((3, 0.5, 0), 40.0) + quat_unit(1, 0, 0, 0) + w_vec((0.4, 0.4, 0.4), 2.0) +
          w_vec((-5, 0, 0), 10.0) + b"\x00" + bytes([DESTROY]) + body(1) + steps(3))
    write(t, "character_in_level", bytes([0]) + level_piece(70) + create((7.1, -2.0, -35.9), (0.3, 0.9, 0.3), kind=KINEMATIC) +
          bytes([MOVE]) + body(0) + w_vec((0.5, 0, 0), 10.0) + b"\x00" + steps(2) +
          bytes([MOVE]) + body(0) + w_vec((0, -1, 0.3), 10.0) + b"\x00")
    write(t, "setters_and_bad_ids", bytes([16]) + create((0, 1, 0), (0.5, 0.5, 0.5), vel=(1, 0, 0)) +
          bytes([SET_POSITION]) + body(0) + w_vec((1, 2, 3), 40.0) + bytes([SET_VELOCITY]) + body(0) + w_vec((0, 5, 0), 20.0) +
          bytes([SET_ORIENTATION]) + body(0) + axis_angle((0, 1, 0), 30) + bytes([SET_FILTER]) + body(0) + b"\x01\x00" +
          bytes([WAKE]) + body(0) + bytes([WAKE_ALL]) + bytes([DESTROY]) + body(0) + bytes([DESTROY]) + body(0) +
          bytes([SET_POSITION]) + b"\xfe\x05\x01" + w_vec((0, 0, 0), 40.0) + steps(2))
    write(t, "sensor_kinematic_ccd", bytes([0]) + floor_mesh(0, 20) + create((0, 1, 0), (1, 1, 1), kind=DYNAMIC | 8) +
          create((3, 0.5, 0), (0.5, 0.5, 0.5), vel=(-4, 0, 0), kind=KINEMATIC) +
          create((0, 3, 0), (0.1, 0.1, 0.1), vel=(0, -19, 0), kind=DYNAMIC | 16) + steps(12) +
          bytes([REMOVE_MESH]) + b"\x00" + steps(2))
    write(t, "bad_values", bytes([0]) + bytes([CREATE]) + b"\xe0\x00" * 3 + quat_unit(1, 0, 0, 0) + w_vec((1, 1, 1), 2.0) +
          w_vec((0, 0, 0), 20.0) + bytes([DYNAMIC]) + create((0, 0, 0), (1, -1, 1)) + create((0, 0, 0), (1, 1, 1)) +
          bytes([STEP, 0xfa]) + raw(-1.0) + bytes([SET_ORIENTATION]) + body(0) + b"\x00" + mixed(2, 2.0) * 4 + steps(1))


if __name__ == "__main__":
    narrowphase_seeds()
    world_seeds()
