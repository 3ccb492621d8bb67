"""
PU decision boundary against a naive SVC
========================================

Placeholder.
"""

import matplotlib.pyplot as plt

plt.plot([0, 1])
