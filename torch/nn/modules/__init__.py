"""The nn.Module classes."""
from torch.nn.modules.activation import (CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh,
                                         LeakyReLU, LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, RReLU, Sigmoid,
                                         SiLU, Softmax, Softmax2d, Softmin, Softplus, Softshrink, Softsign, Tanh,
                                         Tanhshrink, Threshold)
from torch.nn.modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from torch.nn.modules.distance import CosineSimilarity, PairwiseDistance
from torch.nn.modules.pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from torch.nn.modules.padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,
                                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d,
                                      ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d,
                                      ZeroPad3d)
from torch.nn.modules.dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from torch.nn.modules.flatten import Flatten, Unflatten
from torch.nn.modules.fold import Fold, Unfold
from torch.nn.modules.linear import Bilinear, Identity, Linear
from torch.nn.modules.loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, CTCLoss,
                                   GaussianNLLLoss,
                                   HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss, MarginRankingLoss, MSELoss,
                                   MultiLabelSoftMarginLoss, NLLLoss, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss,
                                   TripletMarginLoss, TripletMarginWithDistanceLoss)
from torch.nn.modules.module import Module
# Layers: convolution, pooling, normalisation, embedding.
from torch.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from torch.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from torch.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from torch.nn.modules.normalization import GroupNorm, LayerNorm, RMSNorm
from torch.nn.modules.pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d,
                                      MaxPool2d)
from torch.nn.modules.pooling_volumetric import (AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                                                 AdaptiveMaxPool3d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d,
                                                 MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from torch.nn.modules.sparse import Embedding, EmbeddingBag
from torch.nn.modules.upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from torch.nn.modules._lazy_layers import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d,
                                           LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d,
                                           LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear)
# -- sequence models: recurrent layers, attention, transformer --
from torch.nn.modules.activation import MultiheadAttention
from torch.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from torch.nn.modules.transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                                          TransformerEncoder, TransformerEncoderLayer)

__all__ = ["Module", "Identity", "Linear", "Bilinear", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Flatten", "Unflatten", "Fold", "Unfold",
           "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "PixelShuffle",
           "PixelUnshuffle", "ChannelShuffle", "CosineSimilarity", "PairwiseDistance", "Threshold", "ReLU",
           "Hardtanh", "ReLU6", "Sigmoid",
           "Tanh", "SiLU", "Mish", "Hardsigmoid", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
           "LeakyReLU", "RReLU", "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin",
           "Softmax", "Softmax2d", "LogSoftmax", "L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss",
           # Layers: convolution, pooling, normalisation, embedding.
           "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "MaxPool1d",
           "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d",
           "LayerNorm", "GroupNorm", "RMSNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "Embedding", "EmbeddingBag", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
           # lazy layers: input sizes inferred on the first call
           "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d",
           # sequence models
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention",
           "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
           "Transformer"]
