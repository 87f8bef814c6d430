"""Training by backpropagation ("Training the hand-made model" on the site).

- ``backprop``: ``loss_and_grads``, the gradient of the loss by the chain rule through every block;
- ``optimiser``: the paper's recipe that every trainer shares: Adam, the learning-rate schedule, dropout;
- ``trainer``: ``train``, which trains the hand-made model's architecture from random weights;
- ``adder``: ``train_adder``, the hand-set adder's architecture trained from random weights, and
  ``trained_adder``, the weights the adder page shows.

The encoder-decoder's training is ``handtf.seq2seq.training``. Every name is importable from
``handtf``.
"""
