"""preview"""
