"""Adds the kernel headers to the wheel as fmhactl/kernels (kernels/ stays put in the checkout):
pyproject's package finder only sees folders under fmhactl/, so the mapped package is named here."""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["fmhactl*"]) + ["fmhactl.kernels"])
