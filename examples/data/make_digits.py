"""Makes digits.npz, the data set of examples/train_digits.py and examples/cnn_digits.py.

The UCI optical recognition of handwritten digits test set as scikit-learn ships it
(sklearn.datasets.load_digits): 1797 grayscale 8x8 images, pixel values 0..16, labels 0..9.
It is stored once in the repository; this script documents how, and is run by hand (it needs
scikit-learn, which is no dependency of Ember; CI never runs it):

    python3 -m venv /tmp/skl && /tmp/skl/bin/pip install scikit-learn
    /tmp/skl/bin/python examples/data/make_digits.py

digits.npz holds `images` (1797, 8, 8) uint8 and `labels` (1797,) int64.
"""
import os

import numpy as np
from sklearn.datasets import load_digits


def main() -> None:
    digits = load_digits()
    images = digits.images.astype(np.uint8)          # float64 0.0..16.0 in scikit-learn: exact
    assert np.array_equal(images, digits.images) and images.shape == (1797, 8, 8)
    labels = digits.target.astype(np.int64)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "digits.npz")
    np.savez_compressed(path, images=images, labels=labels)
    print(f"wrote {path}: images {images.shape} {images.dtype}, labels {labels.shape} {labels.dtype},"
          f" {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
